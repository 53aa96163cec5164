"""{board: rows}, each board's rows built when first read: a page asks for one board, a ranking for none."""


class Boards(dict):
    """{board: rows}: `build` gives each board a function making its rows (scoring.model.Row, or the hub's
    traveller row dicts), called when the board is first read."""

    def __init__(self, build):
        super().__init__()
        self._build = build  # {board: () -> rows}

    def __missing__(self, board):
        make = self._build.get(board)
        if make is None:
            raise KeyError(board)
        rows = self[board] = make()
        return rows

    def get(self, board, default=None):
        return self[board] if board in self._build else default

    def keys(self):
        return sorted(self._build)

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._build)

    def __contains__(self, board):
        return board in self._build

    def items(self):
        return [(b, self[b]) for b in self.keys()]

    def values(self):
        return [self[b] for b in self.keys()]

    def __eq__(self, other):
        return dict(self.items()) == other

    __hash__ = None
