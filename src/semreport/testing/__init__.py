"""Test helpers shipped with semreport: hypothesis strategies and the storage conformance suite.

The strategies and the conformance suite import ``pytest`` and ``hypothesis``
(the ``test`` dependency group, or ``pip install pytest hypothesis``); they are
loaded only when first used, so the synthetic generator and the collection
loaders work without them. The rest of semreport never imports this package.

- :mod:`semreport.testing.strategies`: hypothesis strategies for every model.
- :mod:`semreport.testing.conformance`: the rules every storage adapter keeps,
  as abstract pytest classes; subclass :class:`StorageConformance` (or
  :class:`PersistentStorageConformance`) and implement ``open_storage``.
- :mod:`semreport.testing.samples`: small fixed sample records
  (:func:`sample_decisions`, :func:`sample_session`, :func:`preview_session`).
- :mod:`semreport.testing.synthetic`: seeded synthetic projects
  (:func:`synthetic_decisions`, :func:`synthetic_queries`).
- :mod:`semreport.testing.collections`: the public test collections CISI, MED
  and ADI as projects, with their queries, judgements, nDCG and recall.
- :mod:`semreport.testing.cisi`: the CISI-only names of the same.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semreport.testing.samples import (
    UNICODE_SAMPLES,
    preview_session,
    sample_decisions,
    sample_session,
)
from semreport.testing.synthetic import synthetic_decisions, synthetic_queries

if TYPE_CHECKING:
    from semreport.testing import strategies
    from semreport.testing.conformance import (
        InputRefusalRules,
        MalformedInputRules,
        ManualClock,
        PersistentStorageConformance,
        StorageConformance,
        TamperRules,
        poked,
    )

_LAZY = {
    "InputRefusalRules": "semreport.testing.conformance",
    "MalformedInputRules": "semreport.testing.conformance",
    "ManualClock": "semreport.testing.conformance",
    "TamperRules": "semreport.testing.conformance",
    "poked": "semreport.testing.conformance",
    "PersistentStorageConformance": "semreport.testing.conformance",
    "StorageConformance": "semreport.testing.conformance",
    "strategies": "semreport.testing.strategies",
}

__all__ = [
    "UNICODE_SAMPLES",
    "InputRefusalRules",
    "MalformedInputRules",
    "ManualClock",
    "PersistentStorageConformance",
    "StorageConformance",
    "TamperRules",
    "poked",
    "preview_session",
    "sample_decisions",
    "sample_session",
    "strategies",
    "synthetic_decisions",
    "synthetic_queries",
]


def __getattr__(name: str) -> Any:
    # pytest and hypothesis are imported only when a name that needs them is used.
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        return module if name == "strategies" else getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
