"""The GNN slot's only adapter today: :class:`NullGNN`, which holds no model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NoReturn

from semreport.domain import GnnModelNotLoaded, ModelStatus

__all__ = ["NULL_GNN_REASON", "NullGNN"]

NULL_GNN_REASON: Final = (
    "no trained graph neural network checkpoint exists for semreport; semantic search "
    "is served by the explainable heuristic scorer, and model inference is refused"
)
"""Why :class:`NullGNN` holds no model."""


class NullGNN:
    """The empty GNN slot: reports ``loaded: false`` and refuses every inference."""

    def status(self) -> ModelStatus:
        """Report that no model is loaded, and why."""
        return ModelStatus(loaded=False, reason=NULL_GNN_REASON)

    def infer(self, payload: object) -> Mapping[str, Any]:
        """Refuse, whatever ``payload`` is (valid, empty or malformed)."""
        return _refuse()


def _refuse() -> NoReturn:
    raise GnnModelNotLoaded(
        "GNN inference is not available: no model is loaded. " + NULL_GNN_REASON
    )
