"""Checksums that tell a real number from a look-alike: Luhn (cards), mod 97 (IBAN), ISO 7064
MOD 11-2 (PRC resident ids) and the SSA's rules for US social security numbers."""

from __future__ import annotations


def luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def iban_ok(compact: str) -> bool:
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def prc_id_ok(value: str) -> bool:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    total = sum(int(d) * w for d, w in zip(value[:17], weights, strict=True))
    month, day = int(value[10:12]), int(value[12:14])
    return "10X98765432"[total % 11] == value[17].upper() and 1 <= month <= 12 and 1 <= day <= 31


def ssn_ok(area: str, group: str, serial: str) -> bool:
    return area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"
