"""``attributes``: numeric closeness to targets (find's ``near``, the exemplar's numbers)."""

from __future__ import annotations

import numpy as np

from semreport.domain import FrozenDict, JsonValue
from semreport.search._index import F64, I64, IndexSnapshot
from semreport.search.signals._base import Evidence, Page, Prepared, Query, Signal

__all__ = ["AttributesSignal"]


class Closeness(Prepared):
    """``exp(-|value - target| / scale)`` averaged over the targets; computed for rows asked."""

    def __init__(self, snap: IndexSnapshot, targets: dict[str, float]) -> None:
        super().__init__()
        self.snap = snap
        self.targets = targets
        self.names = sorted(targets)

    def size(self) -> int:
        return self.snap.n

    def compute_dense(self) -> F64:
        return self._compute(None)[0]

    def values(self, rows: I64) -> tuple[F64, F64]:
        return self._compute(rows)

    def _compute(self, rows: I64 | None) -> tuple[F64, F64]:
        snap = self.snap
        size = snap.n if rows is None else len(rows)
        # float32 is plenty for a closeness in [0, 1] and halves the work of exp.
        total = np.zeros(size, dtype=np.float32)
        out = np.empty(size, dtype=np.float32)
        for name in self.names:
            values = snap.attribute_values(name)
            if values is None:
                continue
            if rows is not None:
                values = values[rows]
            # exp(-|value - target| / scale), in place: no temporaries over the project.
            np.subtract(values, np.float32(self.targets[name]), out=out)
            np.abs(out, out=out)
            out *= np.float32(-1.0 / snap.scale(name))
            np.exp(out, out=out)
            total += out
        raw = total.astype(np.float64)
        return raw / len(self.names), raw

    def explain(self, page: Page) -> list[Evidence]:
        """The evidence of each page row: per target, the value, delta and scale."""
        snap = self.snap
        index = page.array
        columns: dict[str, list[float | None]] = {}
        for name in self.names:
            column = snap.attributes.get(name)
            if column is None:
                columns[name] = [None] * len(index)
            else:
                part = column[index]
                columns[name] = [
                    None if missing else value
                    for value, missing in zip(part.tolist(), np.isnan(part).tolist(), strict=True)
                ]
        fixed = [(name, self.targets[name], snap.scale(name)) for name in self.names]
        out: list[Evidence] = []
        for i in range(len(index)):
            deltas: dict[str, JsonValue] = {}
            for name, target, scale in fixed:
                value = columns[name][i]
                deltas[name] = FrozenDict(
                    {
                        "delta": None if value is None else value - target,
                        "scale": scale,
                        "target": target,
                        "value": value,
                    }
                )
            out.append(FrozenDict({"attributes": FrozenDict(deltas)}))
        return out


class AttributesSignal(Signal):
    """Closeness of numeric attributes to targets."""

    name = "attributes"
    kind = "numeric"
    description = (
        "Numeric closeness exp(-|value - target| / scale), scale = IQR / 1.349 of the attribute "
        "(else its standard deviation), averaged over the targets; missing counts 0."
    )
    needs = "exemplar numeric attributes, or criteria.near"
    find_weight = 0.5
    similar_weight = 0.2

    def active(self, query: Query) -> bool:
        """Whether the request activates the signal."""
        return bool(query.targets)

    def prepare(self, query: Query) -> Closeness:
        """The signal's state for the request."""
        return Closeness(query.snap, query.targets)

    def coverage(self, snap: IndexSnapshot) -> float:
        """The share of decisions that carry the signal."""
        if not snap.attributes:
            return 0.0
        present = np.zeros(snap.n, dtype=np.bool_)
        for column in snap.attributes.values():
            present |= ~np.isnan(column)
        return float(present.sum()) / max(snap.n, 1)
