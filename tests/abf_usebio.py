"""A USEBIO file as the ABF's results importer reads it (abftech/cobalt, results/views/usebio.py and its results
views): xmltodict, then fixed paths, each value taken as that code takes it (int(), float(), strptime). A
KeyError, IndexError or ValueError here is what the importer would raise. Used by tests/host/test_usebio_readers.py
and tests/e2e/test_demo.py."""
import datetime as dt

import xmltodict

SUPPORTED = ("MP_PAIRS", "CROSS_IMP", "BUTLER_PAIRS")  # the upload's check (issue 40): "PAIRS" is refused
SEATS = ("North", "East", "South", "West")  # how its board views read a HAND (hand["North"])


def abf_read(text):
    """The file as the ABF's importer reads it: the same parser and the same paths, each as that code takes it."""
    root = xmltodict.parse(text)["USEBIO"]
    event = root["EVENT"]
    if event["@EVENT_TYPE"] not in SUPPORTED:
        raise ValueError(f"Event type '{event['@EVENT_TYPE']}' is not currently supported")
    pairs = []
    for p in event["PARTICIPANTS"]["PAIR"]:
        pairs.append({"pair": p["PAIR_NUMBER"], "direction": p.get("DIRECTION"), "place": int(p["PLACE"]),
                      "masterpoints": int(p["MASTER_POINTS_AWARDED"]) / 100.0, "percentage": p["PERCENTAGE"],
                      "players": [p["PLAYER"][0]["PLAYER_NAME"], p["PLAYER"][1]["PLAYER_NAME"]],
                      "numbers": [p["PLAYER"][0]["NATIONAL_ID_NUMBER"], p["PLAYER"][1]["NATIONAL_ID_NUMBER"]]})
    numbers = [p["pair"] for p in pairs]
    if len(set(numbers)) != len(numbers):  # players_from_usebio and the views key a pair on PAIR_NUMBER alone
        raise KeyError(f"PAIR_NUMBER not unique: {sorted(numbers)}")
    boards = {}
    for b in event["BOARD"]:
        boards[int(b["BOARD_NUMBER"])] = [
            (line["NS_PAIR_NUMBER"], line["EW_PAIR_NUMBER"], float(line["NS_MATCH_POINTS"]),
             float(line["EW_MATCH_POINTS"]), line["SCORE"]) for line in b["TRAVELLER_LINE"]]
    hands = None  # none without hand records
    if "HANDSET" in root:
        hands = {}
        for b in root["HANDSET"]["BOARD"]:
            by = {h["DIRECTION"]: ".".join(h[s] or "" for s in ("SPADES", "HEARTS", "DIAMONDS", "CLUBS"))
                  for h in b["HAND"]}
            hands[int(b["BOARD_NUMBER"])] = {seat: by[seat] for seat in SEATS}  # KeyError: 'North' if not so
    return {"date": dt.datetime.strptime(event["DATE"], "%d/%m/%Y").date(), "winner_type": event["WINNER_TYPE"],
            "description": event["EVENT_DESCRIPTION"], "pairs": pairs, "boards": boards, "hands": hands}
