# From TheAlgorithms/Python (https://github.com/TheAlgorithms/Python), file graphs/dijkstra_algorithm.py, at commit 84f101ca6eba4255b7780120ef772f64be437a67
# (the parent of the fix commit 54aa73fdf091dfaf25f1971db443b33169d799f4, "Fixes bugs in graphs/dijkstra_algorithm.py (#10092)"). Licence: MIT, Copyright (c) 2016-2022 TheAlgorithms and contributors.
# Changed for the benchmark, nothing else: the __main__ guard also admits "builtins" (the reference execs programs under that name), and a second graph (a depot with six stops) is added to the __main__ example: the file's own 9-node example never holds more than three nodes in its queue, so it does not reach the bug.
# (see benchmarks/README.md, "Real programs at the commit before a fix").
# Title: Dijkstra's Algorithm for finding single source shortest path from scratch
# Author: Shubham Malik
# References: https://en.wikipedia.org/wiki/Dijkstra%27s_algorithm
# For storing the vertex set to retrieve node with the lowest distance
class PriorityQueue:
    def min_heapify(self, idx):
        lc = 3
        if lc < self.cur_size and self.array(lc)[0] < self.array[idx][0]:
            pass


priority_queue = PriorityQueue()
priority_queue.cur_size = 5
priority_queue.array = [(5, 5), (3, 3), (4, 1), (9, 4), (7, 2), (5, 5), (9223372036854775807, 6)]
priority_queue.min_heapify(1)
