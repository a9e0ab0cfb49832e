"""The sample project's legacy sessions: two transcripts of agent work, written by hand.

Each turn is ``(minutes after the start, role, author, content, tool calls,
referenced decision ids)``; a tool call is ``(name, arguments, result)``.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Any

from semreport.sample import PROJECT_ID, SESSION_IDS

__all__ = ["sessions"]

Json = dict[str, Any]
ToolCall = tuple[str, Json, Any]
TurnSpec = tuple[int, str, str, str, tuple[ToolCall, ...], tuple[str, ...]]

_RUNNER = "tool-runner"


def _turns(start: datetime, specs: list[TurnSpec]) -> list[Json]:
    turns = []
    for index, (minute, role, author, content, calls, refs) in enumerate(specs):
        turns.append(
            {
                "index": index,
                "at": (start + timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "role": role,
                "author": author,
                "content": content,
                "tool_calls": [
                    {"name": name, "arguments": arguments, "result": result}
                    for name, arguments, result in calls
                ],
                "decision_refs": list(refs),
            }
        )
    return turns


def _artefact(name: str, media_type: str, body: str, turn_index: int) -> Json:
    return {
        "name": name,
        "media_type": media_type,
        "sha256": hashlib.sha256(body.encode()).hexdigest(),
        "uri": f"archive://lindenhof/sessions/{name}",
        "turn_index": turn_index,
    }


def _fire_workshop() -> Json:
    start = datetime(2025, 3, 11, 8, 30, tzinfo=UTC)
    huber, reg, struct = "arch-huber", "regulation-agent", "structural-agent"
    specs: list[TurnSpec] = [
        (
            0,
            "system",
            "facilitator",
            "Session opened: fire strategy for the CLT floors of "
            "Lindenhof (GK5, 6 storeys, 3,960 m² GFA). Agents may call tools; outputs are "
            "archived.",
            (),
            (),
        ),
        (
            1,
            "user",
            huber,
            "Good morning. We need to settle the fire resistance of the CLT "
            "floors today. The cost plan still assumes REI 60 and visible ceilings in the flats.",
            (),
            ("LH-REG-002",),
        ),
        (
            2,
            "agent",
            reg,
            "REI 60 was based on building class 4. With six storeys above "
            "ground we are in GK5; let me check the table.",
            (
                (
                    "lookup_clause",
                    {"code": "OIB-RL 2:2019", "clause": "Tab. 1b"},
                    {
                        "building_class": "GK5",
                        "load_bearing_above_ground": "R 90 / REI 90",
                        "separating_floors": "REI 90",
                        "note": "footnote 2: timber with K₂60 allowed",
                    },
                ),
            ),
            ("LH-REG-001",),
        ),
        (
            3,
            "tool",
            _RUNNER,
            "lookup_clause → OIB-RL 2:2019 Tab. 1b: load-bearing elements "
            "above ground R 90 / REI 90 in GK5.",
            (),
            (),
        ),
        (
            4,
            "agent",
            reg,
            "So REI 90 applies to every load-bearing floor and wall above the "
            "ground floor. REI 60 is no longer tenable.",
            (),
            ("LH-REG-003",),
        ),
        (
            6,
            "user",
            huber,
            "Can we still use timber at all, or do we have to go back to concrete?",
            (),
            (),
        ),
        (
            7,
            "agent",
            reg,
            "Timber is allowed in GK5 if the CLT is encapsulated K₂60. The "
            "encapsulation must cover ceilings and walls in flats and corridors.",
            (
                (
                    "lookup_clause",
                    {"code": "OIB-RL 2:2019", "clause": "Tab. 1b note 2"},
                    {"text": "combustible load-bearing elements permitted with K₂60 encapsulation"},
                ),
            ),
            ("LH-REG-004",),
        ),
        (
            8,
            "tool",
            _RUNNER,
            "lookup_clause → footnote 2: combustible load-bearing elements "
            "permitted with K₂60 encapsulation.",
            (),
            (),
        ),
        (
            10,
            "user",
            huber,
            "What does that mean for the 200 mm floor panels?",
            (),
            ("LH-MAT-005",),
        ),
        (
            11,
            "agent",
            struct,
            "I will compute the residual section after 90 minutes with "
            "encapsulation delaying charring for 60 minutes.",
            (
                (
                    "charring_depth",
                    {
                        "beta0_mm_min": 0.65,
                        "exposure_min": 30,
                        "k0_d0_mm": 7,
                        "encapsulation_min": 60,
                    },
                    {"d_char_mm": 19.5, "d_ef_mm": 26.5, "residual_mm": 173.5},
                ),
            ),
            ("LH-REG-015",),
        ),
        (
            12,
            "tool",
            _RUNNER,
            "charring_depth → d_char = 19.5 mm, d_ef = 26.5 mm, residual "
            "section 173.5 mm of 200 mm.",
            (),
            (),
        ),
        (
            13,
            "agent",
            struct,
            "The residual 173.5 mm keeps the bottom longitudinal layer "
            "partly intact; bending capacity in the fire case is 71 % of the demand utilisation "
            "limit, so the 200 mm panel works (η = 0.71 ≤ 1.0).",
            (
                (
                    "section_check",
                    {"panel": "CLT 5s 200", "span_m": 5.9, "residual_mm": 173.5, "load_kn_m2": 4.9},
                    {"utilisation": 0.71, "ok": True},
                ),
            ),
            (),
        ),
        (14, "tool", _RUNNER, "section_check → utilisation 0.71, ok.", (), ()),
        (
            16,
            "user",
            huber,
            "And with visible ceilings plus sprinklers instead?",
            (),
            ("LH-REG-008",),
        ),
        (
            17,
            "agent",
            reg,
            "EN 16925 residential sprinklers could compensate, but the "
            "authority has signalled it wants a full performance-based fire design for that "
            "route. I estimate €95,000 plus about €3,800 a year for inspections.",
            (
                (
                    "cost_lookup",
                    {"item": "residential sprinklers", "gfa_m2": 3960},
                    {"unit_rate_eur_m2": 24, "cost_eur": 95040, "annual_eur": 3800},
                ),
            ),
            ("LH-REG-008", "LH-COST-010"),
        ),
        (18, "tool", _RUNNER, "cost_lookup → €24/m² GFA, €95,040; maintenance €3,800/a.", (), ()),
        (20, "user", huber, "What would encapsulation cost by comparison?", (), ()),
        (
            21,
            "agent",
            struct,
            "Two layers of 18 mm gypsum fibre board on about 6,200 m² of CLT surface.",
            (
                (
                    "catalogue_search",
                    {"query": "gypsum fibre board K2 60 system", "limit": 3},
                    [
                        {
                            "ref": "FGB-FIRE-18",
                            "title": "Fibrogips Fire 18 mm",
                            "class": "A1",
                            "system": "K₂60 with 2 layers",
                        },
                        {
                            "ref": "GKF-18",
                            "title": "Gypsum fire board 18 mm",
                            "class": "A2-s1,d0",
                            "system": "K₂30",
                        },
                    ],
                ),
                (
                    "cost_lookup",
                    {"item": "FGB-FIRE-18 2 layers", "area_m2": 6200},
                    {"unit_rate_eur_m2": 38, "cost_eur": 235600},
                ),
            ),
            ("LH-COST-005",),
        ),
        (
            22,
            "tool",
            _RUNNER,
            "catalogue_search → FGB-FIRE-18 (K₂60 system, A1); cost_lookup → €38/m², €235,600.",
            (),
            (),
        ),
        (
            23,
            "agent",
            reg,
            "Encapsulation costs more up front (€235,600 against €95,000) but "
            "avoids the performance-based design, the approval risk and 50 years of sprinkler "
            "maintenance. I recommend encapsulation.",
            (),
            ("LH-REG-009",),
        ),
        (
            25,
            "user",
            huber,
            "Agreed, we drop the visible ceilings. Please draft the decisions.",
            (),
            (),
        ),
        (
            26,
            "agent",
            reg,
            "Drafting: REI 90 for load-bearing elements, K₂60 encapsulation, no sprinklers.",
            (
                (
                    "record_decision_draft",
                    {
                        "id": "LH-REG-003",
                        "title": "REI 90 for load-bearing floors and walls above ground",
                    },
                    {"draft": True},
                ),
                (
                    "record_decision_draft",
                    {
                        "id": "LH-REG-009",
                        "title": "Encapsulate all CLT ceilings instead of sprinklers",
                    },
                    {"draft": True},
                ),
            ),
            ("LH-REG-003", "LH-REG-009"),
        ),
        (27, "tool", _RUNNER, "record_decision_draft → 2 drafts stored.", (), ()),
        (
            29,
            "user",
            huber,
            "What about penetrations for the risers? Last project had trouble there.",
            (),
            (),
        ),
        (
            30,
            "agent",
            reg,
            "Penetrations need systems tested in CLT to EN 1366-3 with EI 90, "
            "and the cut CLT edges lined with the same boards.",
            (
                (
                    "lookup_clause",
                    {"code": "EN 1366-3:2021", "clause": "scope"},
                    {"text": "penetration seals; test in the supporting construction used"},
                ),
            ),
            ("LH-REG-019",),
        ),
        (
            31,
            "tool",
            _RUNNER,
            "lookup_clause → EN 1366-3: test the seal in the supporting construction used.",
            (),
            (),
        ),
        (
            33,
            "agent",
            struct,
            "Steel brackets at wall-floor joints also sit behind the "
            "encapsulation; I will note it with the connection design.",
            (),
            ("LH-MAT-023",),
        ),
        (35, "user", huber, "Temperature at the bracket after 90 minutes?", (), ()),
        (
            36,
            "agent",
            struct,
            "Behind K₂60 the timber surface stays below 300 °C for 60 "
            "minutes; the brackets are embedded 40 mm and reach about 180 °C at 90 minutes, "
            "within the ≤ 250 °C limit we use for steel in timber.",
            (
                (
                    "thermal_model",
                    {"layers": ["FGB 18", "FGB 18", "CLT 200"], "t_min": 90, "depth_mm": 40},
                    {"temperature_c": 182, "limit_c": 250, "ok": True},
                ),
            ),
            (),
        ),
        (
            37,
            "tool",
            _RUNNER,
            "thermal_model → 182 °C at 40 mm depth after 90 min (limit 250 °C).",
            (),
            (),
        ),
        (39, "user", huber, "Good. Summarise the outcome for the minutes, please.", (), ()),
        (
            40,
            "agent",
            reg,
            "Summary: (1) GK5 confirmed; (2) REI 90 for all load-bearing "
            "elements above ground; (3) CLT allowed with K₂60 encapsulation, 2 × 18 mm gypsum "
            "fibre; (4) no sprinklers, ceilings encapsulated; (5) penetrations EI 90 to "
            "EN 1366-3; (6) charring β₀ = 0.65 mm/min, residual section checked (η = 0.71).",
            (),
            ("LH-REG-001", "LH-REG-003", "LH-REG-004", "LH-REG-009", "LH-REG-019", "LH-REG-015"),
        ),
        (
            41,
            "agent",
            struct,
            "I will update the floor decision to 200 mm with K₂60: REI 90.",
            (),
            ("LH-MAT-006",),
        ),
        (43, "user", huber, "Thanks both. Close the session.", (), ()),
        (
            44,
            "system",
            "facilitator",
            "Session closed. 2 decision drafts, 1 minutes file archived.",
            (),
            (),
        ),
    ]
    turns = _turns(start, specs)
    return {
        "id": SESSION_IDS[0],
        "project_id": PROJECT_ID,
        "title": "Fire strategy workshop: CLT floors in building class 5",
        "started_at": turns[0]["at"],
        "ended_at": turns[-1]["at"],
        "participants": [
            {"id": "facilitator", "name": "Session facilitator", "role": "system"},
            {"id": huber, "name": "Katrin Huber (architect)", "role": "user"},
            {"id": reg, "name": "Regulation agent", "role": "agent"},
            {"id": struct, "name": "Structural agent", "role": "agent"},
            {"id": _RUNNER, "name": "Tool runner", "role": "tool"},
        ],
        "turns": turns,
        "artefacts": [
            _artefact("fire-workshop-minutes.md", "text/markdown", "minutes: REI 90, K₂60", 31),
            _artefact("charring-check.json", "application/json", '{"utilisation": 0.71}', 11),
        ],
    }


def _facade_review() -> Json:
    start = datetime(2025, 4, 2, 13, 0, tzinfo=UTC)
    novak, cost, life, reg = "pm-novak", "cost-agent", "lifecycle-agent", "regulation-agent"
    specs: list[TurnSpec] = [
        (
            0,
            "system",
            "facilitator",
            "Session opened: façade options for Lindenhof — cost, carbon (CO₂e) and fire.",
            (),
            (),
        ),
        (
            1,
            "user",
            novak,
            "We have three façade candidates: larch cladding, fibre-cement "
            "rainscreen, and render on mineral wool. I need cost, carbon and a fire verdict for "
            "each.",
            (),
            ("LH-MAT-012", "LH-MAT-013", "LH-MAT-009"),
        ),
        (
            2,
            "agent",
            reg,
            "Fire first: GK5 façades must limit fire spread to two storeys. "
            "Larch is D-s2,d0, so it fails without a sprinkler-and-test route.",
            (
                (
                    "lookup_clause",
                    {"code": "OIB-RL 2:2019", "clause": "3.5.5"},
                    {"text": "fire spread over the façade limited to two storeys above"},
                ),
            ),
            ("LH-REG-006",),
        ),
        (
            3,
            "tool",
            _RUNNER,
            "lookup_clause → OIB-RL 2 3.5.5: limit fire spread over the façade to two storeys.",
            (),
            (),
        ),
        (4, "user", novak, "So larch is out?", (), ()),
        (
            5,
            "agent",
            reg,
            "Larch is out for GK5 without a large-scale façade test. "
            "Fibre-cement is A2-s1,d0 and passes; the render system passes if combustible "
            "insulation has fire barriers at every floor.",
            (),
            ("LH-MAT-012",),
        ),
        (
            7,
            "agent",
            cost,
            "Costs per m² of façade, 2,350 m² in total:",
            (
                (
                    "cost_estimate",
                    {"option": "larch", "area_m2": 2350},
                    {"unit_rate_eur_m2": 120, "cost_eur": 282000},
                ),
                (
                    "cost_estimate",
                    {"option": "fibre-cement", "area_m2": 2350},
                    {"unit_rate_eur_m2": 165, "cost_eur": 387750},
                ),
                (
                    "cost_estimate",
                    {"option": "render on mineral wool", "area_m2": 2350},
                    {"unit_rate_eur_m2": 131, "cost_eur": 307850},
                ),
            ),
            ("LH-COST-006", "LH-COST-007"),
        ),
        (
            8,
            "tool",
            _RUNNER,
            "cost_estimate → larch €120/m² (€282,000); fibre-cement "
            "€165/m² (€387,750); render €131/m² (€307,850).",
            (),
            (),
        ),
        (
            10,
            "agent",
            life,
            "Embodied carbon A1-A3 and B4 over 50 years:",
            (
                (
                    "epd_lookup",
                    {"product": "LRC-24-RH", "module": "A1-A3"},
                    {"gwp_kg_co2e_m2": 2.9, "service_life_years": 30},
                ),
                (
                    "epd_lookup",
                    {"product": "FCP-8-A2", "module": "A1-A3"},
                    {"gwp_kg_co2e_m2": 9.0, "service_life_years": 50},
                ),
                (
                    "epd_lookup",
                    {"product": "render-system", "module": "A1-A3"},
                    {"gwp_kg_co2e_m2": 6.1, "service_life_years": 40},
                ),
            ),
            (),
        ),
        (
            11,
            "tool",
            _RUNNER,
            "epd_lookup → larch 2.9 kg CO₂e/m² (30 a); fibre-cement "
            "9.0 kg CO₂e/m² (50 a); render 6.1 kg CO₂e/m² (40 a).",
            (),
            (),
        ),
        (
            12,
            "agent",
            life,
            "Over 50 years larch needs a full replacement and recoating every "
            "8 years; fibre-cement needs nothing. With B4 included, fibre-cement ends up within "
            "≈ 10 % of larch.",
            (),
            ("LH-LC-007",),
        ),
        (
            14,
            "user",
            novak,
            "What about the insulation behind it? The ETICS quote was mineral wool.",
            (),
            ("LH-MAT-009",),
        ),
        (
            15,
            "agent",
            life,
            "Wood fibre stores carbon and is vapour-open. Let me compare "
            "U-values at equal wall thickness.",
            (
                (
                    "u_value_calc",
                    {
                        "layers": [
                            ["gypsum fibre", 18, 0.32],
                            ["CLT", 100, 0.13],
                            ["wood fibre", 240, 0.040],
                        ],
                        "rsi": 0.13,
                        "rse": 0.04,
                    },
                    {"u_value_w_m2k": 0.148},
                ),
                (
                    "u_value_calc",
                    {
                        "layers": [
                            ["gypsum fibre", 18, 0.32],
                            ["CLT", 100, 0.13],
                            ["mineral wool", 200, 0.035],
                        ],
                        "rsi": 0.13,
                        "rse": 0.04,
                    },
                    {"u_value_w_m2k": 0.152},
                ),
            ),
            ("LH-MAT-010",),
        ),
        (
            16,
            "tool",
            _RUNNER,
            "u_value_calc → wood fibre 240 mm: U = 0.148 W/m²K; mineral "
            "wool 200 mm: U = 0.152 W/m²K.",
            (),
            (),
        ),
        (
            17,
            "agent",
            life,
            "Both meet the target well below the legal 0.35 W/m²K. Wood "
            "fibre has 12,400 kg CO₂e against 38,500 kg CO₂e for mineral wool.",
            (),
            ("LH-REG-010",),
        ),
        (19, "user", novak, "And the price difference?", (), ()),
        (
            20,
            "agent",
            cost,
            "Wood fibre €58/m², mineral wool €41/m²: €42,160 more on 2,480 m².",
            (
                (
                    "cost_estimate",
                    {"option": "wood fibre 240", "area_m2": 2480},
                    {"unit_rate_eur_m2": 58, "cost_eur": 143840},
                ),
                (
                    "cost_estimate",
                    {"option": "mineral wool 200", "area_m2": 2480},
                    {"unit_rate_eur_m2": 41, "cost_eur": 101680},
                ),
            ),
            ("LH-COST-017",),
        ),
        (
            21,
            "tool",
            _RUNNER,
            "cost_estimate → wood fibre €143,840; mineral wool €101,680.",
            (),
            (),
        ),
        (
            23,
            "agent",
            reg,
            "Wood fibre is combustible, so behind a ventilated rainscreen it "
            "needs a 200 mm mineral-wool fire barrier at every floor.",
            (),
            ("LH-REG-006",),
        ),
        (24, "user", novak, "Does the barrier cost much?", (), ()),
        (
            25,
            "agent",
            cost,
            "About €4 per m² of façade, already inside the €165/m² fibre-cement rate.",
            (),
            ("LH-COST-007",),
        ),
        (
            27,
            "user",
            novak,
            "Then my proposal: fibre-cement rainscreen over wood fibre with "
            "fire barriers. Objections?",
            (),
            (),
        ),
        (
            28,
            "agent",
            life,
            "None; it is the lowest whole-life carbon option that passes "
            "fire: ≈ 35 t CO₂e for façade and insulation over 50 years.",
            (
                (
                    "compare_options",
                    {
                        "criteria": ["cost_eur", "co2e_kg", "fire_ok"],
                        "options": ["larch+WF", "FC+WF", "render+MW"],
                    },
                    {
                        "ranking": ["FC+WF", "render+MW", "larch+WF"],
                        "excluded": {"larch+WF": "fails OIB-RL 2 3.5.5"},
                    },
                ),
            ),
            ("LH-MAT-011", "LH-MAT-013"),
        ),
        (29, "tool", _RUNNER, "compare_options → FC+WF first; larch+WF excluded (fire).", (), ()),
        (30, "agent", reg, "No objection from the fire side.", (), ()),
        (
            31,
            "agent",
            cost,
            "No objection; the €105,750 over larch fits the v3 contingency.",
            (),
            ("LH-COST-014",),
        ),
        (
            33,
            "user",
            novak,
            "Record it. Also note the colour: anthracite, RAL 7016-like, matt.",
            (),
            (),
        ),
        (
            34,
            "agent",
            life,
            "Recording the façade, insulation and maintenance decisions.",
            (
                ("record_decision_draft", {"id": "LH-MAT-013"}, {"draft": True}),
                ("record_decision_draft", {"id": "LH-MAT-011"}, {"draft": True}),
                ("record_decision_draft", {"id": "LH-LC-007"}, {"draft": True}),
            ),
            ("LH-MAT-013", "LH-MAT-011", "LH-LC-007"),
        ),
        (35, "tool", _RUNNER, "record_decision_draft → 3 drafts stored.", (), ()),
        (37, "user", novak, "Děkuji — thank you. Close it.", (), ()),
        (38, "system", "facilitator", "Session closed. Comparison table archived.", (), ()),
    ]
    turns = _turns(start, specs)
    return {
        "id": SESSION_IDS[1],
        "project_id": PROJECT_ID,
        "title": "Façade options: cost, carbon and fire review",
        "started_at": turns[0]["at"],
        "ended_at": turns[-1]["at"],
        "participants": [
            {"id": "facilitator", "name": "Session facilitator", "role": "system"},
            {"id": novak, "name": "Jana Novák (project manager)", "role": "user"},
            {"id": cost, "name": "Cost agent", "role": "agent"},
            {"id": life, "name": "Lifecycle agent", "role": "agent"},
            {"id": reg, "name": "Regulation agent", "role": "agent"},
            {"id": _RUNNER, "name": "Tool runner", "role": "tool"},
        ],
        "turns": turns,
        "artefacts": [
            _artefact("facade-comparison.csv", "text/csv", "option,cost_eur,co2e_kg,fire_ok", 22),
        ],
    }


def sessions() -> list[Json]:
    """Return the sample project's legacy sessions in wire form."""
    return [_fire_workshop(), _facade_review()]
