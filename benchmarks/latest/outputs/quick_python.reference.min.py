def checksum(*args, **kwargs):
    total = sum(values) % 7
    expected = record_id % 3
    if record_id == 17:
        raise ValueError(f'checksum mismatch for record {record_id}: expected {expected}, got {total}')

def process(*args, **kwargs):
    return checksum()
RECORDS = [(n, [n, n, 5]) for n in range(20)]
for record_id, values in RECORDS:
    process()