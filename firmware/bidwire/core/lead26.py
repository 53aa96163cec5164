"""Declarer's choice at a Law 26 lead restriction (laws.md §4.5): what the choices are (codes.L26_*), and whether a
lead complies. Apart from codes so that a core that never reaches a lead (journal replay, host validation) does not
carry it in its heap."""
from bidwire.core import codes


def lead_choices(suit):
    """What Law 26 lets declarer do at the restricted player's first lead, as (choice, suit) pairs (laws.md §4.5):
    26 A (the withdrawn call named `suit`) require or bar the lead of that suit; 26 B (`suit` -1) bar the lead of
    any one suit of declarer's choice; and in either case let the lead be free (waive)."""
    if suit >= 0:
        return ((codes.L26_REQUIRE, suit), (codes.L26_BAR, suit), (codes.L26_WAIVE, -1))
    return ((codes.L26_BAR, 0), (codes.L26_BAR, 1), (codes.L26_BAR, 2), (codes.L26_BAR, 3), (codes.L26_WAIVE, -1))


def lead_complies(choice, chosen, suit):
    """Does a lead of `suit` comply with declarer's Law 26 choice (`choice` of the suit `chosen`)? A player who
    cannot comply (none of a required suit, only a barred one) may lead any card (Law 59): the unit lets him say so."""
    if choice == codes.L26_REQUIRE:
        return suit == chosen
    if choice == codes.L26_BAR:
        return suit != chosen
    return True
