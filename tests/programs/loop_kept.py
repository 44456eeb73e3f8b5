def check(values):
    total = 0
    if len(values) > 3:
        raise ValueError("loop-sentinel: too many values")


data = [1, 2, 3, 4]
print("noise")
check(data)  # autodd: freeze
