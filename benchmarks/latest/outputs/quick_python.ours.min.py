for record_id, values in [(n, [n, n + 1, (n * n) % 5]) for n in range(20)]:
    if record_id == 17:
        raise ValueError(f"checksum mismatch for record {record_id}: expected {((record_id * 3) % 7)}, got {(sum(values) % 7)}")
