"""The sample project's decisions, written out by hand (templated where a real team repeats itself).

The project: *Lindenhof*, a six-storey timber-hybrid block of 42 flats in
Vienna (3,960 m² gross floor area): a reinforced-concrete basement, ground
floor and cores, with cross-laminated timber (CLT) walls and floors on the
five storeys above. Six agents made the decisions; the order of the list is
the order they were recorded in, so every superseding decision comes after
the one it supersedes.

Run ``python tools/generate_sample.py`` to rewrite the package data.
"""

from __future__ import annotations

from typing import Any

from semreport.sample import PROJECT_ID, SESSION_IDS

__all__ = ["decisions"]

_FIRE_SESSION, _FACADE_SESSION = SESSION_IDS

Json = dict[str, Any]


def _reg(ref: str, title: str, locator: str | None = None, quote: str | None = None) -> Json:
    return _evidence("regulation", ref, title, locator, quote)


def _cat(ref: str, title: str, locator: str | None = None, quote: str | None = None) -> Json:
    return _evidence("catalogue_item", ref, title, locator, quote)


def _cost(ref: str, title: str, locator: str | None = None, quote: str | None = None) -> Json:
    return _evidence("cost_line", ref, title, locator, quote)


def _doc(ref: str, title: str, locator: str | None = None, quote: str | None = None) -> Json:
    return _evidence("document", ref, title, locator, quote)


def _evidence(kind: str, ref: str, title: str, locator: str | None, quote: str | None) -> Json:
    item: Json = {"kind": kind, "ref": ref, "title": title}
    if locator is not None:
        item["locator"] = locator
    if quote is not None:
        item["quote"] = quote
    return item


def _d(  # noqa: PLR0917 - positional fields keep the table of decisions readable
    id_: str,
    domain: str,
    agent: str,
    status: str,
    title: str,
    statement: str,
    rationale: str,
    *,
    tags: tuple[str, ...] = (),
    attributes: Json | None = None,
    evidence: tuple[Json, ...] = (),
    supersedes: tuple[str, ...] = (),
    depends_on: tuple[str, ...] = (),
    relates_to: tuple[str, ...] = (),
    elements: tuple[str, ...] = (),
    session: str | None = None,
) -> Json:
    links = (
        [{"kind": "supersedes", "target": t} for t in supersedes]
        + [{"kind": "depends_on", "target": t} for t in depends_on]
        + [{"kind": "relates_to", "target": t} for t in relates_to]
    )
    record: Json = {
        "id": id_,
        "project_id": PROJECT_ID,
        "title": title,
        "statement": statement,
        "rationale": rationale,
        "domain": domain,
        "status": status,
        "agent": agent,
        "tags": sorted(tags),
        "attributes": dict(attributes or {}),
        "evidence": list(evidence),
        "links": links,
        "elements": sorted(elements),
    }
    if session is not None:
        record["session_id"] = session
    return record


# -- shared citations -----------------------------------------------------------------

_OIB2_TAB1B = _reg(
    "OIB-RL 2:2019 Tab. 1b",
    "OIB-Richtlinie 2, Brandschutz: requirements for building class 5",
    "Table 1b, rows 2.1-2.3",
    "load-bearing walls and floors in above-ground storeys: R 90 / REI 90",
)
_OIB2_CLASS = _reg(
    "OIB-RL Begriffsbestimmungen:2019 GK5",
    "OIB-Richtlinien, definitions: building classes",
    "Gebäudeklasse 5",
    "buildings with an escape level of no more than 22 m not covered by GK 1-4",
)
_OIB2_FACADE = _reg(
    "OIB-RL 2:2019 3.5.5",
    "OIB-Richtlinie 2: fire spread across façades",
    "clause 3.5.5 and 3.5.6",
    "façades of GK 4 and 5 shall limit fire spread over the façade to two storeys above",
)
_OIB6_UVALUES = _reg(
    "OIB-RL 6:2019 Tab. 4.4",
    "OIB-Richtlinie 6, Energieeinsparung: maximum U-values",
    "Table in 4.4",
    "external walls U ≤ 0.35 W/m²K; roofs U ≤ 0.20 W/m²K; windows U ≤ 1.40 W/m²K",
)
_EN1995_12 = _reg(
    "EN 1995-1-2:2004 3.4.2",
    "Eurocode 5, structural fire design of timber",
    "3.4.2, Table 3.1",
    "one-dimensional design charring rate β₀ = 0.65 mm/min for glued laminated and CLT softwood",
)
_EN15978 = _reg(
    "EN 15978:2011",
    "Sustainability of construction works: assessment of environmental performance of buildings",
    "clauses 7 and 8, modules A1-D",
)
_ONORM8115 = _reg(
    "ÖNORM B 8115-2:2021 Tab. 2",
    "Sound insulation in buildings: requirements",
    "Table 2",
    "between flats: D_nT,w ≥ 55 dB; L'nT,w ≤ 48 dB",
)
_EPD_CLT = _doc(
    "EPD-ALP-20230112-IBE1-EN",
    "Environmental product declaration: Alpholz cross-laminated timber",
    "module A1-A3, per m³",
    "GWP-fossil A1-A3: 98.4 kg CO₂e/m³; biogenic carbon stored: 754 kg CO₂/m³",
)
_EPD_CONCRETE = _doc(
    "EPD-VOEB-C3037-2022",
    "Environmental product declaration: ready-mix concrete C30/37, Vienna region",
    "module A1-A3, per m³",
    "GWP A1-A3: 262 kg CO₂e/m³ (CEM II/A-S); 214 kg CO₂e/m³ with 30 % GGBS",
)


def _regulation_decisions() -> list[Json]:
    ra, sa = "regulation-agent", "structural-agent"
    return [
        _d(
            "LH-REG-001",
            "regulation",
            ra,
            "accepted",
            "Building class 5 for Lindenhof",
            "Lindenhof is classified as building class 5 (GK5): six storeys above ground with "
            "the escape level of the top floor at 15.9 m.",
            "Six above-ground storeys exceed the four of building class 4; the escape level "
            "stays below 22 m, so the high-rise rules do not apply.",
            tags=("fire", "building-class", "oib"),
            attributes={"storeys_above_ground": 6, "escape_level_m": 15.9, "gfa_m2": 3960},
            evidence=(_OIB2_CLASS,),
        ),
        _d(
            "LH-REG-002",
            "regulation",
            ra,
            "deprecated",
            "REI 60 for load-bearing timber floors",
            "Load-bearing CLT floors of the upper storeys are designed for a fire resistance of "
            "REI 60 (60 minutes).",
            "First reading assumed building class 4 limits; withdrawn once GK5 was confirmed.",
            tags=("fire", "clt", "floors"),
            attributes={"fire_resistance_min": 60},
            evidence=(
                _reg(
                    "OIB-RL 2:2019 Tab. 1b",
                    "OIB-Richtlinie 2: requirements for building class 4",
                    "Table 1b, column GK4",
                    "load-bearing floors: REI 60",
                ),
            ),
            elements=("clt-floors",),
        ),
        _d(
            "LH-REG-003",
            "regulation",
            ra,
            "accepted",
            "REI 90 for load-bearing floors and walls above ground",
            "Every load-bearing wall and floor above the ground floor has a fire resistance of "
            "90 minutes, REI 90 (R 90 for columns); separating floors between flats also achieve "
            "EI 90.",
            "Building class 5 requires 90 minutes for load-bearing elements above ground; "
            "timber is allowed where the surfaces are encapsulated against fire.",
            tags=("fire", "clt", "floors", "walls", "oib"),
            attributes={"fire_resistance_min": 90},
            evidence=(_OIB2_TAB1B,),
            supersedes=("LH-REG-002",),
            depends_on=("LH-REG-001",),
            elements=("clt-floors", "clt-walls"),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-REG-004",
            "regulation",
            ra,
            "accepted",
            "Combustible load-bearing structure with K₂60 encapsulation",
            "CLT may form the load-bearing structure of storeys 2-6 if every CLT surface in "
            "flats and corridors is encapsulated with a K₂60 cladding.",
            "The deviation route of OIB-RL 2 accepts combustible load-bearing elements in GK5 "
            "when encapsulation delays ignition for 60 minutes; the fire strategy relies on it.",
            tags=("fire", "clt", "encapsulation", "oib"),
            attributes={"fire_resistance_min": 90, "encapsulation_min": 60},
            evidence=(
                _reg(
                    "OIB-RL 2:2019 Tab. 1b note 2",
                    "OIB-Richtlinie 2: combustible load-bearing elements in GK5",
                    "Table 1b, footnote 2",
                    "REI 60 with K₂60 encapsulation may replace REI 90 in A2 in the top storeys",
                ),
                _reg(
                    "EN 13501-2:2016 7.5.5",
                    "Fire classification of construction products: K classification",
                    "clause 7.5.5",
                ),
            ),
            depends_on=("LH-REG-003",),
            elements=("clt-floors", "clt-walls"),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-REG-005",
            "regulation",
            ra,
            "accepted",
            "Non-combustible stair and lift cores",
            "Both stair cores and the lift shaft are reinforced concrete, REI 90 and A2-s1,d0, "
            "continuous from the basement to the roof.",
            "Escape stairs in GK5 must be of non-combustible construction; concrete cores also "
            "carry the horizontal loads of the timber storeys.",
            tags=("fire", "cores", "escape"),
            attributes={"fire_resistance_min": 90},
            evidence=(_OIB2_TAB1B,),
            depends_on=("LH-REG-001",),
            elements=("core-stair-a", "core-stair-b", "core-lift"),
        ),
        _d(
            "LH-REG-006",
            "regulation",
            ra,
            "accepted",
            "Façade cladding A2-s1,d0 or storey-wise fire barriers",
            "Ventilated façade cladding is class A2-s1,d0; any combustible insulation behind a "
            "render is interrupted at every floor by a 200 mm mineral-wool fire barrier.",
            "Building class 5 must limit fire spread across the façade to two storeys.",
            tags=("fire", "facade", "cladding"),
            attributes={"fire_barrier_height_mm": 200},
            evidence=(_OIB2_FACADE,),
            depends_on=("LH-REG-001",),
            elements=("facade-cladding", "ext-wall-insulation"),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-REG-007",
            "regulation",
            ra,
            "accepted",
            "Escape distances of at most 40 m",
            "No point in a flat is more than 40 m from the door of a stair core; the corridor "
            "plan gives at most 31 m.",
            "OIB-RL 2 limits the travel distance to a safe stairway to 40 m.",
            tags=("fire", "escape", "corridor"),
            attributes={"travel_distance_m": 31, "travel_distance_max_m": 40},
            evidence=(
                _reg(
                    "OIB-RL 2:2019 5.1.1",
                    "OIB-Richtlinie 2: escape routes",
                    "clause 5.1.1",
                    "at most 40 m walking distance to a stairway or the open air",
                ),
            ),
            elements=("corridors",),
        ),
        _d(
            "LH-REG-008",
            "regulation",
            ra,
            "deprecated",
            "Residential sprinklers to keep visible CLT ceilings",
            "Install a residential sprinkler system (EN 16925) in all flats so that CLT "
            "ceilings can stay visible.",
            "Sprinklers would compensate for unencapsulated timber surfaces in the flats.",
            tags=("fire", "sprinkler", "clt", "visible-timber"),
            attributes={"cost_eur": 95000},
            evidence=(
                _reg(
                    "EN 16925:2018",
                    "Fixed firefighting systems: automatic residential sprinkler systems",
                ),
            ),
            relates_to=("LH-REG-004",),
            elements=("clt-floors",),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-REG-009",
            "regulation",
            ra,
            "accepted",
            "Encapsulate all CLT ceilings instead of sprinklers",
            "Flats get fully encapsulated CLT ceilings; no sprinkler system is installed.",
            "The authority would not accept visible ceilings in GK5 without a full "
            "performance-based fire design; encapsulation is cheaper than sprinklers plus "
            "their maintenance over 50 years.",
            tags=("fire", "sprinkler", "clt", "encapsulation"),
            attributes={"fire_resistance_min": 90, "cost_eur": 0},
            evidence=(_OIB2_TAB1B,),
            supersedes=("LH-REG-008",),
            depends_on=("LH-REG-004",),
            elements=("clt-floors",),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-REG-010",
            "regulation",
            "energy-agent",
            "accepted",
            "Envelope U-value limits",
            "The thermal envelope meets the OIB-RL 6 limits: external walls U ≤ 0.35, roof "
            "U ≤ 0.20, windows U ≤ 1.40 and floor to unheated basement U ≤ 0.40 W/m²K.",
            "Legal minimum; the project targets far better values (see the material decisions).",
            tags=("energy", "u-value", "envelope", "oib"),
            attributes={"u_value_w_m2k": 0.35, "u_value_roof_max_w_m2k": 0.2},
            evidence=(_OIB6_UVALUES,),
            elements=("ext-walls", "roof", "windows"),
        ),
        _d(
            "LH-REG-011",
            "regulation",
            "energy-agent",
            "accepted",
            "Heating demand target of 22 kWh/m²a",
            "The reference heating demand (HWB_Ref) is at most 22 kWh/m²a for the Vienna "
            "reference climate.",
            "Required for the klimaaktiv silver rating the client asked for; the legal limit "
            "for this compactness is about 30 kWh/m²a.",
            tags=("energy", "heating-demand", "klimaaktiv"),
            attributes={"hwb_kwh_m2a": 22},
            evidence=(
                _reg(
                    "OIB-RL 6:2019 4.2.1",
                    "OIB-Richtlinie 6: heating demand limits for new residential buildings",
                    "clause 4.2.1",
                ),
            ),
        ),
        _d(
            "LH-REG-012",
            "regulation",
            ra,
            "accepted",
            "Sound insulation between flats",
            "Separating floors achieve L'nT,w ≤ 45 dB and separating walls D_nT,w ≥ 58 dB, "
            "3 dB better than the ÖNORM minimum.",
            "Lightweight timber floors are prone to low-frequency impact noise; the client "
            "asked for a margin above the minimum.",
            tags=("acoustics", "floors", "party-wall"),
            attributes={"impact_sound_db": 45, "airborne_sound_db": 58},
            evidence=(_ONORM8115,),
            elements=("clt-floors", "party-walls"),
        ),
        _d(
            "LH-REG-013",
            "regulation",
            ra,
            "accepted",
            "Barrier-free lift and access",
            "The lift car measures 1.10 m × 1.40 m with a 0.90 m door; every flat entrance is "
            "step-free and level thresholds are ≤ 2 cm.",
            "Vienna building code requires barrier-free access to every flat in new housing.",
            tags=("accessibility", "lift"),
            attributes={"lift_car_width_m": 1.1, "lift_car_depth_m": 1.4},
            evidence=(
                _reg(
                    "ÖNORM B 1600:2017 5.2",
                    "Barrier-free design: lifts",
                    "clause 5.2",
                    "lift cars at least 1.10 m wide and 1.40 m deep",
                ),
            ),
            elements=("core-lift",),
        ),
        _d(
            "LH-REG-014",
            "regulation",
            ra,
            "accepted",
            "Balcony guard height 1.00 m",
            "Balcony balustrades are 1.00 m high, with no climbable horizontal members "
            "between 0.15 m and 0.60 m above the floor.",
            "Fall height above 12 m requires a 1.00 m guard in OIB-RL 4.",
            tags=("safety", "balcony"),
            attributes={"guard_height_m": 1.0},
            evidence=(_reg("OIB-RL 4:2019 4.2", "OIB-Richtlinie 4, safety in use: guards", "4.2"),),
            elements=("balconies",),
        ),
        _d(
            "LH-REG-015",
            "regulation",
            sa,
            "accepted",
            "Charring rate and zero-strength layer for CLT",
            "Fire design of CLT uses β₀ = 0.65 mm/min with a 7 mm zero-strength layer; panels "
            "with layers thinner than 25 mm use the stepped charring model.",
            "Eurocode 5 part 1-2 values; the stepped model covers fall-off of charred lamellae.",
            tags=("fire", "clt", "eurocode", "structure"),
            attributes={"charring_rate_mm_min": 0.65, "zero_strength_layer_mm": 7},
            evidence=(_EN1995_12,),
            depends_on=("LH-REG-003",),
            elements=("clt-floors", "clt-walls"),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-REG-016",
            "regulation",
            sa,
            "accepted",
            "Seismic design for Vienna, agR 0.80 m/s²",
            "The building is designed for a reference peak ground acceleration of 0.80 m/s², "
            "ground type B, with the concrete cores taking all horizontal forces.",
            "National annex values for Vienna; timber storeys act as diaphragms only.",
            tags=("structure", "seismic", "eurocode"),
            attributes={"agr_m_s2": 0.8},
            evidence=(
                _reg(
                    "ÖNORM B 1998-1:2017 Annex A",
                    "Eurocode 8, national annex: seismic zones of Austria",
                ),
            ),
            elements=("core-stair-a", "core-stair-b"),
        ),
        _d(
            "LH-REG-017",
            "regulation",
            sa,
            "accepted",
            "Snow load on the green roof",
            "Characteristic ground snow load sk = 1.36 kN/m² plus the saturated substrate "
            "of the extensive green roof at 1.5 kN/m².",
            "Vienna (altitude 190 m), zone 2 of the national annex.",
            tags=("structure", "roof", "loads"),
            attributes={"snow_load_kn_m2": 1.36, "substrate_load_kn_m2": 1.5},
            evidence=(_reg("ÖNORM B 1991-1-3:2018", "Eurocode 1, national annex: snow loads"),),
            elements=("roof",),
        ),
        _d(
            "LH-REG-018",
            "regulation",
            ra,
            "accepted",
            "Fire brigade access from Lindengasse",
            "A 3.5 m wide fire brigade access with a turntable ladder set-up area runs along "
            "the street façade; courtyard flats rely on the two escape stairs.",
            "GK5 with two independent stairways needs no second rescue route by ladder.",
            tags=("fire", "escape", "site"),
            attributes={"access_width_m": 3.5},
            evidence=(
                _reg(
                    "TRVB 134 F:2017",
                    "Technical guideline for fire brigade access and set-up areas",
                ),
            ),
            depends_on=("LH-REG-005",),
            elements=("site",),
        ),
        _d(
            "LH-REG-019",
            "regulation",
            ra,
            "accepted",
            "Fire-stopped service penetrations through CLT floors",
            "Every service penetration through a CLT floor uses a tested system with EI 90 and "
            "the CLT edge lined with 2 × 18 mm gypsum fibre board.",
            "Penetrations are the weak point of encapsulated timber; only systems tested in "
            "CLT are acceptable.",
            tags=("fire", "services", "clt"),
            attributes={"fire_resistance_min": 90},
            evidence=(
                _reg(
                    "EN 1366-3:2021",
                    "Fire resistance tests for service installations: penetration seals",
                ),
            ),
            depends_on=("LH-REG-003",),
            elements=("clt-floors", "service-shafts"),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-REG-020",
            "regulation",
            ra,
            "accepted",
            "Basement garage as a separate fire compartment",
            "The 28-space basement garage forms its own fire compartment (REI 90) with "
            "mechanical smoke extraction of 10 air changes per hour.",
            "Garages over 250 m² need compartmentation and smoke extraction.",
            tags=("fire", "garage", "ventilation"),
            attributes={"fire_resistance_min": 90, "air_changes_per_h": 10, "area_m2": 780},
            evidence=(
                _reg("OIB-RL 2.2:2019 4.5", "OIB-Richtlinie 2.2: garages, smoke extraction"),
            ),
            elements=("basement-garage",),
        ),
    ]


def _material_decisions() -> list[Json]:
    ma, sa = "material-agent", "structural-agent"
    storeys = [
        _d(
            f"LH-MAT-L{level}",
            "material",
            sa,
            "accepted",
            f"CLT floor panel layout, level {level}",
            f"Level {level} uses {panels} CLT floor panels of 2.95 m × 12.0 m spanning "
            f"between the party walls, {area} m² in all, with a 1.2 m cantilever to the "
            "south balconies' connectors.",
            "Panels span one way onto the party walls so that the concrete cores take no "
            "vertical timber loads; the panel width fits the truck limit of 3.0 m.",
            tags=("clt", "floors", "layout", f"level-{level}"),
            attributes={
                "area_m2": area,
                "volume_m3": round(area * 0.2, 1),
                "panels": panels,
                "thickness_mm": 200,
            },
            evidence=(
                _cat(
                    "ALP-CLT-5S-200-NSI",
                    "Alpholz CLT 5s 200 mm, non-visible quality",
                    f"order list, level {level}",
                ),
            ),
            depends_on=("LH-MAT-006",),
            elements=(f"clt-floor-l{level}", "clt-floors"),
        )
        for level, panels, area in (
            (1, 22, 748),
            (2, 22, 748),
            (3, 22, 748),
            (4, 21, 712),
            (5, 18, 604),
        )
    ]
    return [
        _d(
            "LH-MAT-001",
            "material",
            sa,
            "deprecated",
            "All-concrete flat-slab frame",
            "The superstructure is a reinforced-concrete flat-slab frame: 240 mm slabs on "
            "250 mm walls, C30/37 throughout.",
            "Baseline option for the cost plan; withdrawn after the carbon comparison.",
            tags=("structure", "concrete", "frame"),
            attributes={"co2e_kg": 1_420_000, "thickness_mm": 240},
            evidence=(_EPD_CONCRETE,),
            elements=("superstructure",),
        ),
        _d(
            "LH-MAT-002",
            "material",
            sa,
            "accepted",
            "Timber-hybrid structure: concrete podium and cores, CLT above",
            "Basement, ground floor and the three cores are reinforced concrete; the five "
            "storeys above are CLT walls and floors bearing on a 300 mm transfer slab.",
            "Cuts the structure's A1-A3 emissions by about 45 % against the all-concrete "
            "frame, shortens the shell programme by 14 weeks and keeps the ground floor "
            "flexible for shops.",
            tags=("structure", "timber-hybrid", "clt", "concrete"),
            attributes={"co2e_kg": 780_000, "programme_saving_weeks": 14},
            evidence=(_EPD_CLT, _EPD_CONCRETE),
            supersedes=("LH-MAT-001",),
            depends_on=("LH-REG-004",),
            elements=("superstructure", "podium-slab", "clt-floors", "clt-walls"),
        ),
        _d(
            "LH-MAT-003",
            "material",
            sa,
            "rejected",
            "Glulam post-and-beam frame with CLT slabs",
            "A glulam column-and-beam grid of 6.0 m × 7.5 m carrying 160 mm CLT slabs.",
            "Rejected: downstand beams cost 30 cm of storey height and the columns clash "
            "with the flat layouts; fire-rated beam-column joints add cost.",
            tags=("structure", "glulam", "clt"),
            attributes={"co2e_kg": 720_000, "storey_height_loss_mm": 300},
            relates_to=("LH-MAT-002",),
            elements=("superstructure",),
        ),
        _d(
            "LH-MAT-004",
            "material",
            ma,
            "deprecated",
            "CLT floors 5s 160 mm",
            "Floors are 5-layer CLT, 160 mm, span 5.9 m, with a suspended ceiling.",
            "Lightest panel meeting the deflection limit L/300 at 5.9 m span.",
            tags=("clt", "floors"),
            attributes={"thickness_mm": 160, "fire_resistance_min": 60, "co2e_kg": 66_000},
            evidence=(_cat("ALP-CLT-5S-160", "Alpholz CLT 5s 160 mm"),),
            elements=("clt-floors",),
        ),
        _d(
            "LH-MAT-005",
            "material",
            ma,
            "deprecated",
            "CLT floors 5s 200 mm, REI 60",
            "Floors are 5-layer CLT 200 mm to meet vibration (f₁ ≥ 8 Hz) and REI 60 by "
            "charring alone.",
            "160 mm failed the vibration check under the screed load.",
            tags=("clt", "floors", "vibration"),
            attributes={"thickness_mm": 200, "fire_resistance_min": 60, "co2e_kg": 82_000},
            evidence=(_cat("ALP-CLT-5S-200-NSI", "Alpholz CLT 5s 200 mm, non-visible quality"),),
            supersedes=("LH-MAT-004",),
            depends_on=("LH-REG-002",),
            elements=("clt-floors",),
        ),
        _d(
            "LH-MAT-006",
            "material",
            ma,
            "accepted",
            "CLT floors 5s 200 mm with K₂60 encapsulation: REI 90",
            "Floors are 5-layer CLT 200 mm, encapsulated below with 2 × 18 mm gypsum fibre "
            "board (K₂60) and topped by 60 mm cement screed, giving a fire resistance of REI 90.",
            "Charring starts after 60 minutes behind the boards; the residual section after "
            "30 further minutes carries the fire load case with the Eurocode 5 charring rate.",
            tags=("clt", "floors", "fire", "encapsulation"),
            attributes={
                "thickness_mm": 200,
                "fire_resistance_min": 90,
                "co2e_kg": 94_000,
                "area_m2": 3560,
            },
            evidence=(
                _cat("ALP-CLT-5S-200-NSI", "Alpholz CLT 5s 200 mm, non-visible quality"),
                _cat("FGB-FIRE-18", "Fibrogips Fire 18 mm gypsum fibre board, A1, K₂60 system"),
                _EN1995_12,
            ),
            supersedes=("LH-MAT-005",),
            depends_on=("LH-REG-003", "LH-REG-004", "LH-REG-015"),
            elements=("clt-floors",),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-MAT-007",
            "material",
            ma,
            "accepted",
            "Floor build-up for impact sound",
            "On the CLT: 50 mm bound gravel fill, 30 mm impact sound insulation "
            "(s' ≤ 10 MN/m³), separation foil and 60 mm cement screed; L'nT,w 44 dB predicted.",
            "The mass of the gravel fill is what brings timber floors below 45 dB.",
            tags=("acoustics", "floors", "screed"),
            attributes={"impact_sound_db": 44, "thickness_mm": 140, "mass_kg_m2": 210},
            evidence=(
                _cat("ISO-TSDP-30", "Impact sound insulation board 30 mm, s' 9 MN/m³"),
                _ONORM8115,
            ),
            depends_on=("LH-REG-012", "LH-MAT-006"),
            elements=("clt-floors",),
        ),
        _d(
            "LH-MAT-008",
            "material",
            ma,
            "accepted",
            "Load-bearing external walls in CLT 100 mm",
            "External walls of levels 1-5 are 3-layer CLT 100 mm, encapsulated inside with "
            "one 18 mm gypsum fibre board.",
            "External walls carry only the façade zone loads; 100 mm meets R 90 with the "
            "encapsulation.",
            tags=("clt", "walls", "envelope"),
            attributes={"thickness_mm": 100, "fire_resistance_min": 90, "area_m2": 2480},
            evidence=(_cat("ALP-CLT-3S-100-NSI", "Alpholz CLT 3s 100 mm"),),
            depends_on=("LH-REG-003",),
            elements=("ext-walls", "clt-walls"),
        ),
        _d(
            "LH-MAT-009",
            "material",
            ma,
            "deprecated",
            "External insulation: 200 mm mineral wool ETICS",
            "200 mm mineral wool slabs with a thin render (ETICS) on the CLT walls; "
            "U = 0.18 W/m²K.",
            "Non-combustible and cheap, but the wall then has a poor vapour profile and "
            "more embodied carbon than wood fibre.",
            tags=("insulation", "envelope", "u-value", "mineral-wool"),
            attributes={"u_value_w_m2k": 0.18, "thickness_mm": 200, "co2e_kg": 38_500},
            evidence=(_cat("MW-ETICS-FKD-S", "Mineral wool ETICS slab, λ 0.035"), _OIB6_UVALUES),
            elements=("ext-wall-insulation",),
        ),
        _d(
            "LH-MAT-010",
            "material",
            ma,
            "deprecated",
            "External insulation: 240 mm wood-fibre board",
            "240 mm wood-fibre insulation board with a mineral render; U = 0.15 W/m²K.",
            "Vapour-open, stores carbon, better summer heat protection; superseded because "
            "the façade fire rule needs fire barriers in combustible insulation.",
            tags=("insulation", "envelope", "u-value", "wood-fibre"),
            attributes={"u_value_w_m2k": 0.15, "thickness_mm": 240, "co2e_kg": 12_400},
            evidence=(_cat("WF-THERM-240", "Wood-fibre insulation board 240 mm, λ 0.040"),),
            supersedes=("LH-MAT-009",),
            elements=("ext-wall-insulation",),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-MAT-011",
            "material",
            ma,
            "accepted",
            "Wood-fibre insulation with mineral-wool fire barriers",
            "240 mm wood-fibre board (U = 0.15 W/m²K) interrupted at every floor by a "
            "200 mm high band of non-combustible mineral wool, behind a ventilated "
            "fibre-cement rainscreen.",
            "Keeps the carbon and moisture benefits of wood fibre while limiting fire spread "
            "across the façade to the storey of origin.",
            tags=("insulation", "envelope", "u-value", "wood-fibre", "fire"),
            attributes={"u_value_w_m2k": 0.15, "thickness_mm": 240, "co2e_kg": 13_900},
            evidence=(
                _cat("WF-THERM-240", "Wood-fibre insulation board 240 mm, λ 0.040"),
                _OIB2_FACADE,
            ),
            supersedes=("LH-MAT-010",),
            depends_on=("LH-REG-006",),
            elements=("ext-wall-insulation", "facade-cladding"),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-MAT-012",
            "material",
            ma,
            "deprecated",
            "Vertical larch cladding",
            "Untreated Siberian larch boards, 24 mm, on battens as the façade finish.",
            "Warm appearance and low embodied carbon; class D-s2,d0 fails the façade fire "
            "rule for building class 5.",
            tags=("facade", "cladding", "timber"),
            attributes={"co2e_kg": 6_800, "service_life_years": 30},
            evidence=(_cat("LRC-24-RH", "Larch cladding 24 mm, rhombus profile"),),
            relates_to=("LH-REG-006",),
            elements=("facade-cladding",),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-MAT-013",
            "material",
            ma,
            "accepted",
            "Fibre-cement rainscreen cladding A2-s1,d0",
            "8 mm through-coloured fibre-cement panels, A2-s1,d0, on aluminium rails over "
            "the wood-fibre insulation; 2,350 m² of façade.",
            "Non-combustible finish satisfies the façade fire rule; 50-year service life with "
            "no coating.",
            tags=("facade", "cladding", "fire"),
            attributes={"co2e_kg": 21_200, "area_m2": 2350, "service_life_years": 50},
            evidence=(
                _cat("FCP-8-A2", "Fibre-cement façade panel 8 mm, A2-s1,d0"),
                _OIB2_FACADE,
            ),
            supersedes=("LH-MAT-012",),
            depends_on=("LH-REG-006",),
            elements=("facade-cladding",),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-MAT-014",
            "material",
            ma,
            "accepted",
            "Timber-aluminium windows, triple glazed",
            "Timber-aluminium windows with triple glazing: Uw = 0.78 W/m²K, g = 0.50, "
            "installed in the insulation plane.",
            "Well below the 1.40 limit; timber inside matches the CLT interiors.",
            tags=("windows", "envelope", "u-value"),
            attributes={"u_value_w_m2k": 0.78, "area_m2": 720, "co2e_kg": 48_000},
            evidence=(_cat("WIN-HA-TRIPLE-78", "Timber-aluminium window, triple glazing"),),
            depends_on=("LH-REG-010",),
            elements=("windows",),
        ),
        _d(
            "LH-MAT-015",
            "material",
            ma,
            "deprecated",
            "Inverted roof with XPS",
            "Inverted flat roof: CLT 200 mm, membrane, 200 mm XPS, gravel; U = 0.15 W/m²K.",
            "Simple to build; superseded because XPS adds carbon and the client wants a "
            "green roof.",
            tags=("roof", "envelope", "u-value"),
            attributes={"u_value_w_m2k": 0.15, "co2e_kg": 31_000, "area_m2": 640},
            evidence=(_cat("XPS-300-200", "XPS board 200 mm"),),
            elements=("roof",),
        ),
        _d(
            "LH-MAT-016",
            "material",
            ma,
            "accepted",
            "Extensive green roof on warm deck",
            "Warm deck roof: CLT 200 mm, vapour control layer, 300 mm tapered EPS (≥ 2 % "
            "falls), bituminous membrane with root barrier, 100 mm extensive substrate; "
            "U = 0.11 W/m²K.",
            "Retains rainwater, cools the top flats in summer and meets the U-value target.",
            tags=("roof", "envelope", "u-value", "green-roof"),
            attributes={"u_value_w_m2k": 0.11, "co2e_kg": 36_500, "area_m2": 640},
            evidence=(
                _cat("GR-EXT-100", "Extensive green roof system, 100 mm substrate"),
                _OIB6_UVALUES,
            ),
            supersedes=("LH-MAT-015",),
            depends_on=("LH-REG-017",),
            elements=("roof",),
        ),
        _d(
            "LH-MAT-017",
            "material",
            sa,
            "accepted",
            "Concrete cores 250 mm, C30/37 with GGBS",
            "Stair and lift cores are 250 mm reinforced concrete walls, C30/37 with 30 % "
            "ground granulated blast-furnace slag.",
            "Cores stabilise the building; slag cement lowers their embodied carbon.",
            tags=("concrete", "cores", "structure"),
            attributes={"thickness_mm": 250, "fire_resistance_min": 90, "volume_m3": 610},
            evidence=(_EPD_CONCRETE,),
            depends_on=("LH-REG-005", "LH-REG-016"),
            elements=("core-stair-a", "core-stair-b", "core-lift"),
        ),
        _d(
            "LH-MAT-018",
            "material",
            sa,
            "accepted",
            "Podium transfer slab 300 mm",
            "A 300 mm post-tensioned flat slab over the ground floor carries the CLT walls "
            "and frees the shop floor of walls.",
            "The timber grid does not align with the shop layout below.",
            tags=("concrete", "podium", "structure"),
            attributes={"thickness_mm": 300, "volume_m3": 235},
            evidence=(_EPD_CONCRETE,),
            depends_on=("LH-MAT-002",),
            elements=("podium-slab",),
        ),
        _d(
            "LH-MAT-019",
            "material",
            sa,
            "deprecated",
            "Self-supporting steel balcony towers",
            "Balconies on a separate galvanised steel frame standing in front of the south façade.",
            "No thermal bridges; superseded for cost and because the columns block the "
            "ground-floor shop fronts.",
            tags=("balcony", "steel"),
            attributes={"co2e_kg": 52_000, "balconies": 42},
            elements=("balconies",),
        ),
        _d(
            "LH-MAT-020",
            "material",
            sa,
            "accepted",
            "Precast concrete balconies on thermal-break connectors",
            "42 precast balcony slabs (2.0 m × 4.2 m) hung from the CLT floors with "
            "thermally broken steel connectors, χ = 0.11 W/K per connector.",
            "Cheaper than the steel towers, clear shop fronts, thermal bridges acceptable.",
            tags=("balcony", "precast", "thermal-bridge"),
            attributes={"co2e_kg": 41_000, "balconies": 42, "chi_w_k": 0.11},
            evidence=(_cat("TBC-K-XT-70", "Thermal-break balcony connector for timber, 70 mm"),),
            supersedes=("LH-MAT-019",),
            depends_on=("LH-MAT-006",),
            elements=("balconies",),
        ),
        _d(
            "LH-MAT-021",
            "material",
            ma,
            "accepted",
            "Party walls: double CLT with a cavity",
            "Walls between flats are two leaves of 90 mm CLT with a 50 mm mineral-wool cavity, "
            "each leaf encapsulated; D_nT,w 62 dB predicted.",
            "Two decoupled leaves meet the acoustic target without heavy linings.",
            tags=("clt", "party-wall", "acoustics"),
            attributes={"thickness_mm": 230, "airborne_sound_db": 62, "fire_resistance_min": 90},
            evidence=(_cat("ALP-CLT-3S-90-NSI", "Alpholz CLT 3s 90 mm"), _ONORM8115),
            depends_on=("LH-REG-012",),
            elements=("party-walls", "clt-walls"),
        ),
        _d(
            "LH-MAT-022",
            "material",
            ma,
            "accepted",
            "Construction moisture protection for CLT",
            "CLT is delivered at 12 % ± 2 % moisture content, erected under a temporary roof "
            "and closed in only below 15 %; 40 wireless moisture sensors stay in the floors.",
            "Trapped construction moisture is the main durability risk of timber floors under "
            "screed.",
            tags=("clt", "moisture", "durability", "construction"),
            attributes={"moisture_content_max_pct": 15, "sensors": 40},
            evidence=(
                _doc("LH-QA-PLAN-07", "Quality plan: moisture management during construction"),
            ),
            elements=("clt-floors", "clt-walls"),
        ),
        _d(
            "LH-MAT-023",
            "material",
            sa,
            "accepted",
            "Screwed steel connections, protected by encapsulation",
            "Wall-floor joints use self-tapping screws and steel angle brackets, all behind "
            "the K₂60 encapsulation.",
            "Unprotected steel loses strength fast in fire; the encapsulation covers it.",
            tags=("connections", "clt", "fire", "disassembly"),
            attributes={"fire_resistance_min": 90, "screws": 41_000},
            evidence=(_cat("SCR-VGS-11x300", "Fully threaded screw 11 × 300 mm"),),
            depends_on=("LH-MAT-006",),
            elements=("clt-floors", "clt-walls"),
        ),
        _d(
            "LH-MAT-024",
            "material",
            ma,
            "accepted",
            "Service shafts lined EI 90",
            "Vertical service shafts are lined with 2 × 25 mm gypsum boards to EI 90, with "
            "fire dampers at every floor.",
            "Shafts connect all storeys, so they must be their own fire compartment.",
            tags=("services", "fire", "shafts"),
            attributes={"fire_resistance_min": 90},
            evidence=(_cat("GKF-25-EI90", "Gypsum fire board 25 mm, shaft wall system EI 90"),),
            depends_on=("LH-REG-019",),
            elements=("service-shafts",),
        ),
        _d(
            "LH-MAT-025",
            "material",
            sa,
            "accepted",
            "Watertight concrete basement",
            "Basement walls and slab are watertight concrete (white tank), 300 mm, with "
            "injected joint hoses.",
            "Groundwater at 3.2 m below ground; no applied membrane needed.",
            tags=("concrete", "basement", "waterproofing"),
            attributes={"thickness_mm": 300, "groundwater_depth_m": 3.2, "volume_m3": 920},
            evidence=(_doc("LH-GEO-REP-02", "Geotechnical report, borehole B2", "section 4.3"),),
            elements=("basement-garage", "foundation-raft"),
        ),
        *storeys,
    ]


def _cost_decisions() -> list[Json]:
    ca = "cost-agent"
    groups = (
        ("310", "Excavation and shoring", 410_000, "foundation-raft"),
        ("320", "Foundations and basement slab", 620_000, "foundation-raft"),
        ("330", "External walls and façade", 1_540_000, "ext-walls"),
        ("340", "Internal walls and party walls", 720_000, "party-walls"),
        ("350", "Floors, screeds and ceilings", 1_180_000, "clt-floors"),
        ("360", "Roof and green roof", 310_000, "roof"),
        ("410", "Plumbing and drainage", 390_000, "service-shafts"),
        ("420", "Heating: heat pump and boreholes", 455_000, "heating-plant"),
        ("440", "Electrical installations and PV", 330_000, "pv-array"),
        ("460", "Lift", 95_000, "core-lift"),
    )
    budget = [
        _d(
            f"LH-COST-KG{code}",
            "cost",
            ca,
            "accepted",
            f"Budget for cost group {code}: {name.lower()}",
            f"Cost group {code} ({name}) is budgeted at €{amount:,} net in cost plan v3.",
            "Quantities from the model at design stage, unit rates from three Vienna "
            "tenders of 2024 indexed to Q1 2025.",
            tags=("budget", "cost-plan", f"kg-{code}"),
            attributes={"cost_eur": amount, "cost_per_m2_gfa_eur": round(amount / 3960, 1)},
            evidence=(
                _cost(
                    f"DIN 276 KG {code}",
                    f"Cost plan v3, cost group {code}: {name}",
                    f"cost plan v3, line {code}",
                ),
            ),
            depends_on=("LH-COST-003",),
            elements=(element,),
        )
        for code, name, amount, element in groups
    ]
    return [
        _d(
            "LH-COST-001",
            "cost",
            ca,
            "deprecated",
            "Cost plan v1: all-concrete frame",
            "Construction cost (cost groups 300 + 400) estimated at €5.94 million net, "
            "€1,500 per m² GFA.",
            "Baseline at feasibility stage, before the structural system was chosen.",
            tags=("cost-plan", "estimate"),
            attributes={"cost_eur": 5_940_000, "cost_per_m2_gfa_eur": 1500},
            evidence=(_cost("LH-CP-V1", "Cost plan v1, summary sheet", "line 300+400"),),
            relates_to=("LH-MAT-001",),
        ),
        _d(
            "LH-COST-002",
            "cost",
            ca,
            "deprecated",
            "Cost plan v2: timber-hybrid",
            "Construction cost estimated at €6.55 million net, €1,654 per m² GFA, with the "
            "CLT structure, wood-fibre insulation and sprinklers.",
            "The timber-hybrid option adds CLT supply and encapsulation but saves 14 weeks "
            "of preliminaries.",
            tags=("cost-plan", "estimate", "timber-hybrid"),
            attributes={"cost_eur": 6_550_000, "cost_per_m2_gfa_eur": 1654},
            evidence=(_cost("LH-CP-V2", "Cost plan v2, summary sheet", "line 300+400"),),
            supersedes=("LH-COST-001",),
            depends_on=("LH-MAT-002",),
        ),
        _d(
            "LH-COST-003",
            "cost",
            ca,
            "accepted",
            "Cost plan v3 after value engineering",
            "Construction cost estimated at €6.38 million net (€1,611 per m² GFA): sprinklers "
            "dropped, balconies precast, garage reduced to 28 spaces.",
            "Value engineering saved €170,000 against v2 without touching the fire or "
            "carbon targets.",
            tags=("cost-plan", "estimate", "value-engineering"),
            attributes={"cost_eur": 6_380_000, "cost_per_m2_gfa_eur": 1611},
            evidence=(_cost("LH-CP-V3", "Cost plan v3, summary sheet", "line 300+400"),),
            supersedes=("LH-COST-002",),
            depends_on=("LH-REG-009", "LH-MAT-020", "LH-COST-016"),
        ),
        _d(
            "LH-COST-004",
            "cost",
            ca,
            "accepted",
            "CLT supply and erection at €1,150 per m³",
            "CLT supply, delivery and erection is priced at €1,150/m³ for 1,380 m³: €1,587,000.",
            "Median of three supplier quotes; includes crane time and the temporary roof.",
            tags=("clt", "unit-rate", "tender"),
            attributes={"cost_eur": 1_587_000, "unit_rate_eur_m3": 1150, "volume_m3": 1380},
            evidence=(
                _cost("LH-CP-V3 KG 351.10", "CLT floor panels, supply and erection"),
                _cat("ALP-CLT-5S-200-NSI", "Alpholz CLT 5s 200 mm, non-visible quality"),
            ),
            depends_on=("LH-MAT-002",),
            elements=("clt-floors", "clt-walls"),
        ),
        _d(
            "LH-COST-005",
            "cost",
            ca,
            "accepted",
            "Encapsulation boards at €38 per m²",
            "K₂60 encapsulation (2 × 18 mm gypsum fibre, fixed and jointed) costs €38/m² on "
            "6,200 m² of CLT surface: €235,600.",
            "Priced from the drylining tender; cheaper than sprinklers over the building's life.",
            tags=("encapsulation", "fire", "unit-rate"),
            attributes={"cost_eur": 235_600, "unit_rate_eur_m2": 38, "area_m2": 6200},
            evidence=(
                _cost("LH-CP-V3 KG 353.20", "Ceiling linings, gypsum fibre K₂60"),
                _cat("FGB-FIRE-18", "Fibrogips Fire 18 mm gypsum fibre board, A1, K₂60 system"),
            ),
            depends_on=("LH-MAT-006",),
            elements=("clt-floors", "clt-walls"),
            session=_FIRE_SESSION,
        ),
        _d(
            "LH-COST-006",
            "cost",
            ca,
            "deprecated",
            "Larch cladding at €120 per m²",
            "Larch rainscreen cladding on battens: €120/m² on 2,350 m², €282,000.",
            "Cheapest façade finish; dropped with the larch cladding itself.",
            tags=("facade", "cladding", "unit-rate", "timber"),
            attributes={"cost_eur": 282_000, "unit_rate_eur_m2": 120, "area_m2": 2350},
            evidence=(_cost("LH-CP-V2 KG 335.10", "Façade cladding, larch"),),
            relates_to=("LH-MAT-012",),
            elements=("facade-cladding",),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-COST-007",
            "cost",
            ca,
            "accepted",
            "Fibre-cement cladding at €165 per m²",
            "Fibre-cement rainscreen on aluminium rails: €165/m² on 2,350 m², €387,750, "
            "including the mineral-wool fire barriers.",
            "€105,750 more than larch, offset by no recoating over 50 years.",
            tags=("facade", "cladding", "unit-rate", "fire"),
            attributes={"cost_eur": 387_750, "unit_rate_eur_m2": 165, "area_m2": 2350},
            evidence=(
                _cost("LH-CP-V3 KG 335.10", "Façade cladding, fibre-cement A2-s1,d0"),
                _cat("FCP-8-A2", "Fibre-cement façade panel 8 mm, A2-s1,d0"),
            ),
            supersedes=("LH-COST-006",),
            depends_on=("LH-MAT-013",),
            elements=("facade-cladding",),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-COST-008",
            "cost",
            ca,
            "accepted",
            "Windows at €690 per m²",
            "Timber-aluminium triple-glazed windows: €690/m² on 720 m², €496,800 installed.",
            "Tender price including sills, airtight connection tapes and external blinds.",
            tags=("windows", "unit-rate"),
            attributes={"cost_eur": 496_800, "unit_rate_eur_m2": 690, "area_m2": 720},
            evidence=(_cost("LH-CP-V3 KG 334.10", "Windows and external doors"),),
            depends_on=("LH-MAT-014",),
            elements=("windows",),
        ),
        _d(
            "LH-COST-009",
            "cost",
            ca,
            "accepted",
            "Green roof at €185 per m²",
            "Warm deck with extensive green roof: €185/m² on 640 m², €118,400.",
            "Includes the root barrier, substrate and first-year maintenance.",
            tags=("roof", "green-roof", "unit-rate"),
            attributes={"cost_eur": 118_400, "unit_rate_eur_m2": 185, "area_m2": 640},
            evidence=(_cost("LH-CP-V3 KG 363.40", "Roof finishes, extensive green roof"),),
            depends_on=("LH-MAT-016",),
            elements=("roof",),
        ),
        _d(
            "LH-COST-010",
            "cost",
            ca,
            "rejected",
            "Residential sprinklers at €24 per m²",
            "A residential sprinkler system would cost €24/m² GFA (€95,000) plus €3,800 a "
            "year for inspection.",
            "Rejected together with the visible CLT ceilings.",
            tags=("sprinkler", "fire", "unit-rate"),
            attributes={"cost_eur": 95_000, "annual_cost_eur": 3800},
            evidence=(_cost("LH-CP-V2 KG 474.10", "Fire extinguishing systems"),),
            relates_to=("LH-REG-008",),
        ),
        _d(
            "LH-COST-011",
            "cost",
            ca,
            "accepted",
            "Ground-source heat pump and boreholes",
            "A 120 kW ground-source heat pump with 12 boreholes of 150 m costs €410,000 "
            "including the distribution centre.",
            "Federal and Vienna subsidies cover €85,000 of it.",
            tags=("heating", "heat-pump", "subsidy"),
            attributes={"cost_eur": 410_000, "subsidy_eur": 85_000, "boreholes": 12},
            evidence=(_cost("LH-CP-V3 KG 421.10", "Heat generation: heat pump and probes"),),
            depends_on=("LH-LC-009",),
            elements=("heating-plant",),
        ),
        _d(
            "LH-COST-012",
            "cost",
            ca,
            "accepted",
            "Rooftop PV at €1,300 per kWp",
            "A 48 kWp photovoltaic array on the green roof (bifacial, on raised frames) "
            "costs €62,400.",
            "Bifacial modules above green roofs gain about 8 % yield.",
            tags=("pv", "energy", "unit-rate"),
            attributes={"cost_eur": 62_400, "unit_rate_eur_kwp": 1300, "pv_kwp": 48},
            evidence=(_cost("LH-CP-V3 KG 442.30", "Own power generation: PV"),),
            depends_on=("LH-LC-010",),
            elements=("pv-array", "roof"),
        ),
        _d(
            "LH-COST-013",
            "cost",
            ca,
            "accepted",
            "Precast balconies at €4,900 each",
            "42 precast balconies with connectors and balustrades: €4,900 each, €205,800.",
            "€96,000 less than the steel balcony towers.",
            tags=("balcony", "precast", "unit-rate"),
            attributes={"cost_eur": 205_800, "unit_rate_eur": 4900, "balconies": 42},
            evidence=(_cost("LH-CP-V3 KG 339.20", "Balconies, precast"),),
            depends_on=("LH-MAT-020",),
            elements=("balconies",),
        ),
        _d(
            "LH-COST-014",
            "cost",
            ca,
            "accepted",
            "Contingency of 7.5 %",
            "A contingency of 7.5 % of cost groups 300 + 400 (€478,500) is held for the "
            "timber-specific risks: moisture damage, connector delays, acoustic remedies.",
            "Timber-hybrid projects of this size showed 4-9 % overruns in the last five "
            "tenders the client ran.",
            tags=("contingency", "risk"),
            attributes={"cost_eur": 478_500, "contingency_pct": 7.5},
            evidence=(_doc("LH-RISK-REG-03", "Risk register, revision 3"),),
            depends_on=("LH-COST-003",),
        ),
        _d(
            "LH-COST-015",
            "cost",
            ca,
            "accepted",
            "Crane and logistics with just-in-time CLT delivery",
            "One tower crane for 22 weeks and just-in-time CLT deliveries: €210,000; the "
            "shorter programme saves €180,000 of site overheads.",
            "Prefabrication shortens the shell phase by 14 weeks.",
            tags=("logistics", "programme", "preliminaries"),
            attributes={"cost_eur": 210_000, "saving_eur": 180_000, "crane_weeks": 22},
            evidence=(_cost("LH-CP-V3 KG 391.10", "Site equipment: crane"),),
            depends_on=("LH-MAT-002",),
        ),
        _d(
            "LH-COST-016",
            "cost",
            ca,
            "accepted",
            "Basement garage reduced to 28 spaces",
            "The basement garage shrinks from 36 to 28 spaces (780 m²), saving €290,000; the "
            "Vienna parking regulation allows the reduction near the U-Bahn.",
            "Each underground space costs about €36,000; demand studies showed 0.6 cars per flat.",
            tags=("garage", "value-engineering", "parking"),
            attributes={"cost_eur": 1_010_000, "saving_eur": 290_000, "parking_spaces": 28},
            evidence=(
                _reg("WGarG 2008 §50", "Vienna Garage Act: parking space obligation"),
                _cost("LH-CP-V3 KG 300 garage", "Basement garage, shell and fit-out"),
            ),
            elements=("basement-garage",),
        ),
        _d(
            "LH-COST-017",
            "cost",
            ca,
            "accepted",
            "Wood-fibre insulation at €58 per m²",
            "240 mm wood-fibre board with fire barriers: €58/m² on 2,480 m², €143,840 "
            "(mineral wool ETICS would have been €41/m²).",
            "€42,160 more than mineral wool, accepted for the carbon and moisture benefits.",
            tags=("insulation", "wood-fibre", "unit-rate"),
            attributes={"cost_eur": 143_840, "unit_rate_eur_m2": 58, "area_m2": 2480},
            evidence=(
                _cost("LH-CP-V3 KG 335.20", "External wall insulation, wood fibre"),
                _cat("WF-THERM-240", "Wood-fibre insulation board 240 mm, λ 0.040"),
            ),
            depends_on=("LH-MAT-011",),
            elements=("ext-wall-insulation",),
            session=_FACADE_SESSION,
        ),
        *budget,
    ]


def _lifecycle_decisions() -> list[Json]:
    la = "lifecycle-agent"
    elements = (
        ("clt-floors", "CLT floors", 1_060, 98.4, 104_300, _EPD_CLT),
        ("clt-walls", "CLT walls", 320, 98.4, 31_500, _EPD_CLT),
        ("core-stair-a", "concrete cores", 610, 214.0, 130_500, _EPD_CONCRETE),
        ("podium-slab", "podium transfer slab", 235, 214.0, 50_300, _EPD_CONCRETE),
        ("foundation-raft", "basement and raft", 920, 214.0, 196_900, _EPD_CONCRETE),
    )
    per_element = [
        _d(
            f"LH-LC-1{n:02d}",
            "lifecycle",
            la,
            "accepted",
            f"Embodied carbon A1-A3 of the {name}",
            f"The {name} ({volume} m³) account for {co2e:,} kg CO₂e in modules A1-A3 "
            f"({factor} kg CO₂e/m³, biogenic carbon excluded).",
            "Quantities from the model, factors from the product EPDs; reported per "
            "EN 15978 with the 50-year reference study period.",
            tags=("embodied-carbon", "a1-a3", "epd"),
            attributes={"co2e_kg": co2e, "volume_m3": volume, "gwp_factor_kg_m3": factor},
            evidence=(epd, _EN15978),
            depends_on=("LH-LC-001",),
            elements=(element,),
        )
        for n, (element, name, volume, factor, co2e, epd) in enumerate(elements, start=1)
    ]
    return [
        _d(
            "LH-LC-001",
            "lifecycle",
            la,
            "accepted",
            "Whole-life carbon method: EN 15978, 50 years",
            "Whole-life carbon is assessed per EN 15978 over a 50-year reference study "
            "period: modules A1-A5, B4, B6 and C1-C4, with D and biogenic carbon reported "
            "separately.",
            "Matches the klimaaktiv and the client's ESG reporting.",
            tags=("embodied-carbon", "method", "wlc"),
            attributes={"reference_period_years": 50},
            evidence=(_EN15978,),
        ),
        _d(
            "LH-LC-002",
            "lifecycle",
            la,
            "deprecated",
            "Embodied carbon target ≤ 400 kg CO₂e/m²",
            "Upfront and whole-life embodied carbon (A1-C4, without B6) stays at or below "
            "400 kg CO₂e per m² GFA.",
            "Typical value for concrete housing in Vienna; set before the structure was chosen.",
            tags=("embodied-carbon", "target"),
            attributes={"gwp_target_kg_m2": 400},
            evidence=(_EN15978,),
            depends_on=("LH-LC-001",),
        ),
        _d(
            "LH-LC-003",
            "lifecycle",
            la,
            "accepted",
            "Embodied carbon target ≤ 320 kg CO₂e/m²",
            "A1-C4 embodied carbon (without B6, biogenic carbon excluded) stays at or below "
            "320 kg CO₂e per m² GFA; the current estimate is 287 kg CO₂e/m².",
            "The timber-hybrid structure makes a tighter target reachable.",
            tags=("embodied-carbon", "target", "timber-hybrid"),
            attributes={"gwp_target_kg_m2": 320, "gwp_estimate_kg_m2": 287},
            evidence=(_EN15978, _doc("LH-LCA-REP-02", "Whole-life carbon report, revision 2")),
            supersedes=("LH-LC-002",),
            depends_on=("LH-MAT-002",),
        ),
        _d(
            "LH-LC-004",
            "lifecycle",
            la,
            "accepted",
            "Biogenic carbon reported separately",
            "The CLT and wood-fibre store 1,090 t of biogenic CO₂; it is reported per "
            "EN 16485 beside, not netted against, the fossil emissions.",
            "Netting storage against emissions would hide the fossil carbon.",
            tags=("biogenic-carbon", "method", "clt"),
            attributes={"biogenic_co2_kg": 1_090_000},
            evidence=(
                _reg("EN 16485:2014", "Round and sawn timber: EPDs, product category rules"),
                _EPD_CLT,
            ),
            depends_on=("LH-LC-001",),
            elements=("clt-floors", "clt-walls"),
        ),
        _d(
            "LH-LC-005",
            "lifecycle",
            la,
            "accepted",
            "End of life of the CLT: reuse first",
            "Scenario C3/C4: 60 % of the CLT panels are dismantled and reused, 40 % "
            "incinerated with energy recovery; module D credit reported separately.",
            "Screwed connections and the separation layer under the screed make panels "
            "recoverable.",
            tags=("end-of-life", "clt", "reuse", "disassembly"),
            attributes={"reuse_share_pct": 60, "co2e_kg": 8_900},
            evidence=(_EN15978,),
            depends_on=("LH-MAT-023", "LH-LC-006"),
            elements=("clt-floors", "clt-walls"),
        ),
        _d(
            "LH-LC-006",
            "lifecycle",
            la,
            "accepted",
            "Separation layer between CLT and screed",
            "A PE separation foil and no bonded layers between CLT and screed, so that the "
            "screed lifts off at demolition.",
            "A bonded screed would contaminate the timber and prevent reuse.",
            tags=("disassembly", "circularity", "screed"),
            attributes={"service_life_years": 100},
            evidence=(_doc("LH-DfD-01", "Design for disassembly guideline, chapter 3"),),
            elements=("clt-floors",),
        ),
        _d(
            "LH-LC-007",
            "lifecycle",
            la,
            "accepted",
            "Façade replacement cycles",
            "Fibre-cement cladding lasts the full 50 years (no B4 replacement); the larch "
            "alternative would have needed one replacement at 30 years and recoating every "
            "8 years.",
            "Module B4 for the façade is 9,800 kg CO₂e lower with fibre-cement.",
            tags=("maintenance", "facade", "b4", "service-life"),
            attributes={"service_life_years": 50, "co2e_kg": 0, "b4_saving_co2e_kg": 9800},
            evidence=(_doc("BTL-SERVICE-LIFE-2020", "BBSR service life tables 2020", "group 335"),),
            depends_on=("LH-MAT-013",),
            elements=("facade-cladding",),
            session=_FACADE_SESSION,
        ),
        _d(
            "LH-LC-008",
            "lifecycle",
            la,
            "accepted",
            "Window replacement after 40 years",
            "Windows are replaced once, at 40 years (module B4: 38,400 kg CO₂e); frames are "
            "designed to be removed from the inside.",
            "Service life of timber-aluminium frames per the BBSR tables.",
            tags=("maintenance", "windows", "b4", "service-life"),
            attributes={"service_life_years": 40, "co2e_kg": 38_400},
            evidence=(_doc("BTL-SERVICE-LIFE-2020", "BBSR service life tables 2020", "group 334"),),
            depends_on=("LH-MAT-014",),
            elements=("windows",),
        ),
        _d(
            "LH-LC-009",
            "lifecycle",
            "energy-agent",
            "accepted",
            "Ground-source heat pump, SCOP 4.6",
            "Space heating and hot water come from a ground-source heat pump with a seasonal "
            "COP of 4.6; compressor replaced after 20 years.",
            "Lowest operational carbon of the options (district heating, air-source, "
            "ground-source).",
            tags=("heating", "heat-pump", "operational-energy", "b6"),
            attributes={"scop": 4.6, "service_life_years": 20, "heating_kw": 120},
            evidence=(_doc("LH-ENERGY-CALC-04", "Energy performance calculation, revision 4"),),
            depends_on=("LH-REG-011",),
            elements=("heating-plant",),
        ),
        _d(
            "LH-LC-010",
            "lifecycle",
            "energy-agent",
            "accepted",
            "48 kWp rooftop PV",
            "48 kWp of PV on the green roof yields about 50 MWh a year, 28 % of the "
            "building's heat-pump and common-area electricity; inverters are replaced at "
            "15 years, modules at 30.",
            "The roof area left after plant and access allows 48 kWp.",
            tags=("pv", "energy", "operational-energy", "b6"),
            attributes={"pv_kwp": 48, "yield_kwh_a": 50_400, "service_life_years": 30},
            evidence=(_doc("LH-PV-SIM-01", "PV yield simulation, PVGIS 5.2"),),
            depends_on=("LH-MAT-016",),
            elements=("pv-array", "roof"),
        ),
        _d(
            "LH-LC-011",
            "lifecycle",
            la,
            "accepted",
            "Slag cement in all cast concrete",
            "All cast-in-place concrete uses CEM II/B-S or 30 % GGBS, cutting its A1-A3 "
            "emissions by 18 % (≈ 64 t CO₂e).",
            "Slag is available locally; strength gain is slower, which the programme allows.",
            tags=("concrete", "embodied-carbon", "ggbs"),
            attributes={"co2e_kg": -64_000, "reduction_pct": 18},
            evidence=(_EPD_CONCRETE,),
            elements=("core-stair-a", "core-stair-b", "podium-slab", "foundation-raft"),
        ),
        _d(
            "LH-LC-012",
            "lifecycle",
            la,
            "accepted",
            "Electric-arc-furnace rebar",
            "Reinforcing steel comes from electric arc furnaces with at least 90 % recycled "
            "content (0.45 kg CO₂e/kg).",
            "Halves the rebar's A1-A3 emissions against blast-furnace steel.",
            tags=("steel", "embodied-carbon", "recycled"),
            attributes={"co2e_kg": 93_000, "recycled_content_pct": 90},
            evidence=(_doc("EPD-REBAR-EAF-2023", "EPD: reinforcing steel, EAF route"),),
            elements=("core-stair-a", "podium-slab", "foundation-raft"),
        ),
        _d(
            "LH-LC-013",
            "lifecycle",
            la,
            "accepted",
            "Transport of CLT from Styria",
            "CLT travels 180 km by truck from the plant (module A4: 14,600 kg CO₂e).",
            "The nearest certified CLT plant; rail was checked and needs two extra transshipments.",
            tags=("transport", "a4", "clt"),
            attributes={"co2e_kg": 14_600, "distance_km": 180},
            evidence=(_EN15978,),
            depends_on=("LH-MAT-002",),
            elements=("clt-floors", "clt-walls"),
        ),
        _d(
            "LH-LC-014",
            "lifecycle",
            la,
            "accepted",
            "Operational energy B6 at 24 kWh/m²a",
            "Final energy demand for heating, hot water and auxiliaries is 24 kWh/m²a; with "
            "the Austrian grid mix at 0.16 kg CO₂e/kWh this gives 15.2 kg CO₂e/m² over "
            "50 years net of PV.",
            "The envelope and heat pump decisions together set this figure.",
            tags=("operational-energy", "b6"),
            attributes={"final_energy_kwh_m2a": 24, "co2e_kg_m2_50a": 15.2},
            evidence=(_doc("LH-ENERGY-CALC-04", "Energy performance calculation, revision 4"),),
            depends_on=("LH-LC-009", "LH-LC-010", "LH-MAT-011", "LH-MAT-014"),
        ),
        _d(
            "LH-LC-015",
            "lifecycle",
            la,
            "proposed",
            "Reuse the excavated soil on site",
            "Keep about 1,200 m³ of excavated loess on site for the courtyard landscaping "
            "instead of removing it.",
            "Saves roughly 90 truck journeys and 11 t CO₂e; needs a soil quality test.",
            tags=("site", "circularity", "a5"),
            attributes={"volume_m3": 1200, "co2e_kg": -11_000},
            evidence=(_doc("LH-GEO-REP-02", "Geotechnical report, borehole B2", "section 2.1"),),
            elements=("site",),
        ),
        *per_element,
    ]


def decisions() -> list[Json]:
    """Return the sample project's decisions in wire form, in recording order."""
    regulation = _regulation_decisions()
    material = _material_decisions()
    cost = _cost_decisions()
    lifecycle = _lifecycle_decisions()
    by_id = {d["id"]: d for d in [*regulation, *material, *cost, *lifecycle]}
    # Record in an order a real project might: each decision after everything it links to.
    ordered: list[Json] = []
    placed: set[str] = set()

    def place(decision_id: str) -> None:
        if decision_id in placed:
            return
        placed.add(decision_id)
        for link in by_id[decision_id]["links"]:
            place(link["target"])
        ordered.append(by_id[decision_id])

    for stream in zip(regulation, material, cost, lifecycle, strict=False):
        for decision in stream:
            place(decision["id"])
    for decision in [*regulation, *material, *cost, *lifecycle]:
        place(decision["id"])
    return ordered
