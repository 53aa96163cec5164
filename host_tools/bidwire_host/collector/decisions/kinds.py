"""Every kind of decision by name (Service.decide): the function that checks and stores it."""
from bidwire_host.collector.decisions.alerts import close
from bidwire_host.collector.decisions.draws import draw
from bidwire_host.collector.decisions.leads import lead
from bidwire_host.collector.decisions.players import players, seated
from bidwire_host.collector.decisions.publication import publish
from bidwire_host.collector.decisions.results import correct, enter, resolve
from bidwire_host.collector.decisions.scores import adjust, penalty
from bidwire_host.collector.late_play import late
from bidwire_host.collector.spare_units import give_table

ACTIONS = {"adjust": adjust, "penalty": penalty, "publish": publish, "resolve": resolve, "correct": correct,
           "enter": enter, "close": close, "players": players, "lead": lead, "table": give_table,
           "late": late, "seated": seated, "draw": draw}
ADVANCING = ("resolve", "adjust", "enter", "late")  # decisions after which a round may be complete (in_force.done)
RESULTS = ("resolve", "correct", "adjust", "enter")  # decisions that change a board's traveller
