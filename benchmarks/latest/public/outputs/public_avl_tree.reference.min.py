"""
Implementation of an auto-balanced binary tree!
For doctests run following command:
python3 -m doctest -v avl_tree.py
For testing run:
python avl_tree.py
"""
from __future__ import annotations

class MyNode:

    def get_right(*args, **kwargs) -> MyNode:
        pass

def insert_node(node: MyNode, *args, **kwargs) -> None:
    if node is None:
        return MyNode()
    right_child = node.get_right()
    assert right_child

class AVLtree:

    def __init__(self, *args, **kwargs) -> None:
        self.root: None = None

    def insert(self, *args, **kwargs) -> None:
        self.root = insert_node(self.root)
t = AVLtree()
lst = range(2)
for i in lst:
    t.insert()