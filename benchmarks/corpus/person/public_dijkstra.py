class PriorityQueue:
    def left(self, i):
        return 2 * i + 1

    def min_heapify(self, idx):
        lc = self.left(idx)
        if lc < self.cur_size and self.array(lc)[0] < self.array[idx][0]:
            smallest = lc


q = PriorityQueue()
q.array = [(5, 5), (3, 3), (4, 1), (9, 4), (7, 2)]
q.cur_size = 5
q.min_heapify(1)
