"""A seeded generator of realistic synthetic building-design projects.

Decisions fall into the design's domains, are made by a handful of agents,
carry tags, numeric attributes (``cost_eur``, ``co2e_kg``,
``fire_resistance_min``, ``u_value``...), evidence, building elements, and
links: supersession chains, dependencies and relations. The same seed always
gives the same project; 100,000 decisions take a few seconds.
"""

from __future__ import annotations

import random
from typing import Final

from semreport.domain import (
    Decision,
    DecisionDomain,
    DecisionStatus,
    Evidence,
    EvidenceKind,
    Link,
    LinkKind,
)

__all__ = ["synthetic_decisions", "synthetic_queries"]

_ELEMENTS: Final = (
    "floor",
    "wall",
    "roof",
    "beam",
    "column",
    "slab",
    "facade",
    "window",
    "door",
    "stair",
    "partition",
    "ceiling",
    "foundation",
    "balcony",
    "shaft",
    "duct",
    "riser",
    "core",
)
_MATERIALS: Final = (
    "timber",
    "clt",
    "glulam",
    "steel",
    "concrete",
    "masonry",
    "gypsum",
    "mineral wool",
    "glass",
    "aluminium",
    "brick",
    "stone",
    "hempcrete",
    "recycled steel",
    "low carbon concrete",
)
_QUALITIES: Final = (
    "fire rated",
    "acoustic",
    "insulated",
    "load bearing",
    "non combustible",
    "prefabricated",
    "moisture resistant",
    "low embodied carbon",
    "demountable",
    "thermally broken",
)
_VERBS: Final = ("use", "specify", "adopt", "replace with", "upgrade to", "retain", "omit")
_REASONS: Final = {
    DecisionDomain.REGULATION: (
        "to satisfy the fire safety requirements for escape routes",
        "because the building regulations require a minimum resistance",
        "to meet the acoustic separation standard between dwellings",
        "as the energy code limits the thermal transmittance",
        "to comply with accessibility guidance on landings",
    ),
    DecisionDomain.MATERIAL: (
        "because the supplier can deliver within the programme",
        "since it reduces weight on the transfer structure",
        "as it performs better in wet conditions",
        "to reduce embodied carbon against the baseline",
        "because it is available from certified sustainable sources",
    ),
    DecisionDomain.COST: (
        "to stay within the cost plan for the package",
        "because the tender returns came in over budget",
        "as value engineering identified a cheaper equivalent",
        "since prefabrication cuts site labour costs",
        "to avoid the premium on imported products",
    ),
    DecisionDomain.LIFECYCLE: (
        "to extend the maintenance interval to twenty years",
        "because the element can be disassembled and reused",
        "as the whole life carbon assessment favours it",
        "since replacement cycles dominate operational cost",
        "to allow future adaptation of the floor plate",
    ),
    DecisionDomain.GENERAL: (
        "following the design team workshop",
        "as agreed with the client representative",
        "to coordinate with the services layout",
        "because the architect prefers the appearance",
        "to simplify the construction sequence",
    ),
}
_TAGS: Final = (
    "fire",
    "acoustic",
    "thermal",
    "structure",
    "envelope",
    "interior",
    "services",
    "carbon",
    "budget",
    "programme",
    "maintenance",
    "reuse",
    "procurement",
    "compliance",
    "wet-areas",
    "escape",
    "daylight",
    "ventilation",
    "residential",
    "podium",
)
_AGENTS: Final = (
    "regulation-agent",
    "materials-agent",
    "cost-agent",
    "lifecycle-agent",
    "coordinator",
    "structural-agent",
    "facade-agent",
)
_CLAUSES: Final = ("B3 (4)", "B2 (1)", "E1", "L1A 4.3", "M4 (2)", "A3", "C2 (b)", "F1")


def synthetic_decisions(
    count: int, *, seed: int = 0, project_id: str = "synthetic"
) -> list[Decision]:
    """Generate ``count`` decisions of one project, deterministically from ``seed``.

    About one decision in eight supersedes an earlier one of the same element
    (forming chains); others depend on or relate to earlier decisions. Times
    ``recorded_at`` are left to the log; ``attributes["day"]`` orders them.
    """
    rng = random.Random(seed)  # noqa: S311 - synthetic data, not secrets
    domains = tuple(DecisionDomain)
    decisions: list[Decision] = []
    by_element: dict[str, list[str]] = {}
    element_ids = [f"{e}-{i:03d}" for e in _ELEMENTS for i in range(max(1, count // 200))]
    for index in range(count):
        domain = domains[index % 5] if rng.random() < 0.3 else rng.choice(domains)
        element = rng.choice(element_ids)
        kind = element.rsplit("-", 1)[0]
        material = rng.choice(_MATERIALS)
        quality = rng.choice(_QUALITIES)
        verb = rng.choice(_VERBS)
        title = f"{quality.capitalize()} {material} {kind}"
        statement = f"{verb.capitalize()} {quality} {material} for the {kind} {element}."
        rationale = (
            f"{rng.choice(_REASONS[domain]).capitalize()}; "
            f"{rng.choice(_REASONS[rng.choice(domains)])}. "
            f"Compared with {rng.choice(_MATERIALS)} the {material} option "
            f"{rng.choice(('performs better', 'costs less', 'is lighter', 'lasts longer'))}."
        )
        tags = set(rng.sample(_TAGS, rng.randint(1, 4)))
        attributes: dict[str, float | int | str | bool] = {
            "cost_eur": round(rng.lognormvariate(9, 1.2), 2),
            "day": index // 50,
        }
        if rng.random() < 0.7:
            attributes["co2e_kg"] = round(rng.lognormvariate(7, 1.0), 1)
        if domain in (DecisionDomain.REGULATION, DecisionDomain.MATERIAL) or rng.random() < 0.2:
            attributes["fire_resistance_min"] = rng.choice((30, 60, 90, 120))
        if kind in ("wall", "roof", "facade", "window", "floor") and rng.random() < 0.8:
            attributes["u_value"] = round(rng.uniform(0.1, 1.8), 2)
        if rng.random() < 0.3:
            attributes["prefabricated"] = rng.random() < 0.5
        evidence = []
        if domain is DecisionDomain.REGULATION or rng.random() < 0.3:
            evidence.append(
                Evidence(EvidenceKind.REGULATION, f"BR {rng.choice(_CLAUSES)}", "Building Regs")
            )
        if rng.random() < 0.4:
            evidence.append(
                Evidence(EvidenceKind.CATALOGUE_ITEM, f"CAT-{rng.randint(1, 400):04d}", material)
            )
        if domain is DecisionDomain.COST and rng.random() < 0.7:
            evidence.append(Evidence(EvidenceKind.COST_LINE, f"CP-{rng.randint(1, 900):04d}"))
        links: list[Link] = []
        earlier = by_element.get(element, [])
        if earlier and rng.random() < 0.35:
            links.append(Link(LinkKind.SUPERSEDES, earlier[-1]))
        if decisions and rng.random() < 0.3:
            target = decisions[rng.randrange(len(decisions))].id
            if all(link.target != target for link in links):
                links.append(Link(rng.choice((LinkKind.DEPENDS_ON, LinkKind.RELATES_TO)), target))
        status = rng.choices(
            (
                DecisionStatus.ACCEPTED,
                DecisionStatus.PROPOSED,
                DecisionStatus.REJECTED,
                DecisionStatus.DEPRECATED,
            ),
            weights=(6, 3, 1, 1),
        )[0]
        decision_id = f"d-{index:06d}"
        elements = {element}
        if rng.random() < 0.2:
            elements.add(rng.choice(element_ids))
        decisions.append(
            Decision(
                id=decision_id,
                project_id=project_id,
                title=title,
                statement=statement,
                rationale=rationale,
                agent=rng.choice(_AGENTS),
                domain=domain,
                status=status,
                tags=tags,
                attributes=attributes,
                evidence=tuple(evidence),
                links=tuple(links),
                elements=elements,
            )
        )
        by_element.setdefault(element, []).append(decision_id)
    return decisions


def synthetic_queries(count: int, *, seed: int = 1) -> list[str]:
    """Generate ``count`` short free-text queries in the vocabulary of the projects."""
    rng = random.Random(seed)  # noqa: S311 - synthetic data, not secrets
    out = []
    for _ in range(count):
        words = [rng.choice(_QUALITIES), rng.choice(_MATERIALS), rng.choice(_ELEMENTS)]
        if rng.random() < 0.5:
            words.append(rng.choice(_REASONS[rng.choice(tuple(DecisionDomain))]).split()[-1])
        out.append(" ".join(words))
    return out
