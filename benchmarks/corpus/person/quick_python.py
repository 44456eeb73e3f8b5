def checksum(record_id, values):
    total = sum(values) % 7
    expected = (record_id * 3) % 7
    if record_id == 17 and total != expected:
        raise ValueError(f"checksum mismatch for record {record_id}: expected {expected}, got {total}")


checksum(17, [17, 18, 4])
