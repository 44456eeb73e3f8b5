for record_id, values in [(n, [n, n + 1, (n * n) % 5]) for n in range(20)]:
    total = sum(values) % 7
    expected = (record_id * 3) % 7
    if record_id == 17 and total != expected:
        raise ValueError(f"checksum mismatch for record {record_id}: expected {expected}, got {total}")
