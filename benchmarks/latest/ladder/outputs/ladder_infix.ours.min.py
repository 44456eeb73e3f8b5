priority = {"^": 3, "*": 2, "/": 2, "%": 2, "+": 1, "-": 1}  # Priority of each operator


while priority[" "]:
    pass
