"""Splitting a bill: a ledger hands each payment to its account, the account to its splitter; the
splitter divides what is left by the people who have not paid yet, and the last payer has none."""


class Splitter:
    def __init__(self, people, rounding):
        self.people = people
        self.rounding = rounding

    def share(self, left, paid):
        # what each of the people who have not paid yet owes
        return round(left / (self.people - paid), self.rounding)


class Account:
    def __init__(self, splitter):
        self.splitter = splitter
        self.paid = 0

    def pay(self, left):
        owed = self.splitter.share(left, self.paid)
        self.paid += 1
        return owed


class Ledger:
    def __init__(self, total, account):
        self.left = total
        self.account = account

    def settle(self, payments):
        for amount in payments:
            owed = self.account.pay(self.left)
            print(f"owed {owed:.2f}, paid {amount:.2f}")
            self.left -= amount


ledger = Ledger(90.0, Account(Splitter(3, 2)))
ledger.settle([30.0, 30.0, 30.0, 0.0])
