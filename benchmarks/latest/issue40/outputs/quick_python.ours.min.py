record_id = 17
total = sum([17, 18, 4]) % 7
expected = (record_id * 3) % 7
if record_id == 17 and total != expected:
    raise ValueError(f"checksum mismatch for record {record_id}: expected {expected}, got {total}")
