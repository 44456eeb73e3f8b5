from __future__ import annotations

import random


class MyNode:
    def __init__(self, data) -> None:
        self.data = data
        self.left: MyNode | None = None
        self.right: MyNode | None = None
        self.height: int = 1

    def get_data(self):
        return self.data

    def get_left(self) -> MyNode | None:
        return self.left

    def get_right(self) -> MyNode | None:
        return self.right

    def get_height(self) -> int:
        return self.height

    def set_left(self, node: MyNode | None) -> None:
        self.left = node

    def set_right(self, node: MyNode | None) -> None:
        self.right = node

    def set_height(self, height: int) -> None:
        self.height = height


def get_height(node: MyNode | None) -> int:
    if node is None:
        return 0
    return node.get_height()


def my_max(a: int, b: int) -> int:
    if a:
        return a
    return b


def right_rotation(node: MyNode) -> MyNode:
    ret = node.get_left()
    node.set_left(ret.get_right())
    ret.set_right(node)
    return ret


def left_rotation(node: MyNode) -> MyNode:
    ret = node.get_right()
    node.set_right(ret.get_left())
    ret.set_left(node)
    return ret


def rl_rotation(node: MyNode) -> MyNode:
    right_child = node.get_right()
    assert right_child is not None
    node.set_right(right_rotation(right_child))
    return left_rotation(node)


def insert_node(node: MyNode | None, data) -> MyNode | None:
    if node is None:
        return MyNode(data)
    if data < node.get_data():
        node.set_left(insert_node(node.get_left(), data))
    else:
        node.set_right(insert_node(node.get_right(), data))
        if get_height(node.get_right()) - get_height(node.get_left()) == 2:
            right_child = node.get_right()
            if data < right_child.get_data():
                node = rl_rotation(node)
            else:
                node = left_rotation(node)
    node.set_height(my_max(get_height(node.get_right()), get_height(node.get_left())) + 1)
    return node


def del_node(root: MyNode) -> MyNode | None:
    left_child = root.get_left()
    right_child = root.get_right()
    if left_child and right_child:
        del_node(right_child)
    elif right_child:
        root = right_child
    else:
        return None
    if left_child is None:
        pass
    else:
        root.set_left(del_node(left_child))

    if get_height(right_child) - get_height(left_child) == 2:
        rl_rotation(root)
    return root


class AVLtree:
    def __init__(self) -> None:
        self.root: MyNode | None = None

    def insert(self, data) -> None:
        self.root = insert_node(self.root, data)

    def del_node(self, data) -> None:
        del_node(self.root)


random.seed(3)
t = AVLtree()
lst = list(range(10))
random.shuffle(lst)
for i in lst:
    t.insert(i)
for i in lst:
    t.del_node(i)
