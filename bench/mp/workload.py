"""The benchmark workload: realistic legal auctions (4-15 calls) and Law 77 contracts to score."""

# (dealer, calls): openings, competition, doubles and redoubles, slams and a pass-out
AUCTIONS = (
    ("N", "P P P P"),
    ("N", "1NT P 3NT P P P"),
    ("E", "1H P 2H P P P"),
    ("S", "1S P 2S P 4S P P P"),
    ("W", "1C 1H X 2H 3C P P P"),
    ("N", "P 1D P 1S P 2S P 4S P P P"),
    ("E", "1NT X XX P P P"),
    ("S", "2H P P X P 3C P P P"),
    ("W", "1D 1S 2H 2S 3H 3S 4H P P X P P P"),
    ("N", "2C P 2D P 2NT P 3C P 3H P 4H P P P"),
    ("E", "3S P P P"),
    ("S", "1H 2C 2H 3C 3H 4C 4H 5C X P P P"),
    ("W", "P P 1S P 2C P 2S P P P"),
    ("N", "1C P 1H P 1NT P 3NT P P P"),
    ("E", "1S 2H 4S P P P"),
    ("S", "P 1D X 1H 2C P P P"),
    ("W", "1NT P 2C P 2H P 4H X XX P P P"),
    ("N", "4H 4S X P P P"),
    ("E", "1D P 1H P 1S P 2C P 2D P 3NT P P P"),
    ("S", "1NT P 2C P 2S P 6NT P P P"),
    ("W", "P P P 1C P P P"),
)

# (level, strain 0..4 = C D H S NT, doubled 0/1/2, vulnerable, tricks): made, overtricks, sets, slams
CONTRACTS = (
    (4, 2, 0, False, 10), (3, 4, 0, True, 9), (1, 0, 0, False, 8), (2, 3, 0, True, 7),
    (4, 3, 1, True, 8), (5, 0, 1, False, 11), (3, 4, 2, False, 10), (6, 2, 0, True, 12),
    (7, 4, 0, False, 13), (1, 4, 1, True, 4), (2, 1, 0, False, 9), (4, 2, 2, True, 11),
    (3, 1, 1, False, 5), (6, 3, 1, True, 11), (2, 2, 0, True, 8), (5, 1, 0, False, 12),
)
