"""The director's and scorer's decisions (docs/collector.md), one row each of the table `director_actions`.

* journal.py: the table folded (`fold`: the `State` the scores, pages and checks read), storing a decision
  (`insert`), the refusal (`ActionError`), alert keys, how an adjustment and a penalty count
* checks.py: what the kinds share: the section, table and board named, a section's pairs, Law 79 C's period
* scores.py: `adjust` (adjusted and assigned scores) and `penalty`
* results.py: `resolve` (a held result) and `correct` (the scorer's correction)
* alerts.py: `close`
* leads.py: `lead` (declarer's Law 26 choice, sent to the opening leader's unit)
* publication.py: `publish`
* players.py: `players` (a pair's players)
* kinds.py: every kind by name (`ACTIONS`), for Service.decide
"""
