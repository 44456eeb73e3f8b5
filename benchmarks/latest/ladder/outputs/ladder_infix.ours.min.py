infix = "(a + b) * c ^ 2 - d / e"
infix = infix[::-1]
stack = []
priority = {}  # Priority of each operator


for x in infix:
    if len(stack) == 0:
        stack.append(x)  # If stack is empty, push x to stack
    else:  # while priority of x is not > priority of element in the stack
        while priority[x]:
            pass
