"""The OpenAPI document: generated from the contract, checked in, true to the routes."""

from __future__ import annotations

import datetime as dt
import enum
import runpy
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Annotated, Any, Literal

import attrs
import jsonschema
import pytest
from starlette.testclient import TestClient

import semreport
from semreport import CONTRACT, FrozenDict, Principal
from semreport.http import StaticTokenAuthenticator, build_openapi, create_app, load_openapi
from semreport.http._openapi import OPENAPI_PATH, _Schemas, main, render_openapi

DOCUMENT = load_openapi()
# Integers are limited to what every JSON peer holds exactly (I-JSON, RFC 7493).
INTEGER = {"type": "integer", "minimum": -(2**53 - 1), "maximum": 2**53 - 1}


def _operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }


def validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator resolving ``#/components/...`` references against the document."""
    return jsonschema.Draft202012Validator({**schema, "components": DOCUMENT["components"]})


class TestCheckedIn:
    """The packaged file is exactly what the generator writes."""

    def test_the_file_matches_the_generator(self) -> None:
        assert OPENAPI_PATH.read_text("utf-8") == render_openapi(), (
            "openapi.json is stale: run python -m semreport.http.openapi"
        )

    def test_the_check_command(self, tmp_path: Path) -> None:
        out = tmp_path / "openapi.json"
        assert main(["--check", "--out", str(out)]) == 1
        assert main(["--out", str(out)]) == 0
        assert main(["--check", "--out", str(out)]) == 0
        out.write_text(out.read_text() + " ")
        assert main(["--check", "--out", str(out)]) == 1

    def test_load_returns_a_copy(self) -> None:
        first = load_openapi()
        first["paths"].clear()
        assert load_openapi()["paths"]


class TestCoverage:
    """Every contract row is documented and nothing else; the routes agree."""

    def test_every_contract_row_is_documented(self) -> None:
        assert _operations(DOCUMENT) == {(row.method, row.path) for row in CONTRACT}

    def test_every_served_route_is_documented(self) -> None:
        app = create_app(
            semreport.open("memory://"), StaticTokenAuthenticator({"t": Principal.local()})
        )
        served = {
            (method, route.path)  # type: ignore[attr-defined]
            for route in app.routes
            for method in route.methods or ()  # type: ignore[attr-defined]
        }
        outside = {("GET", "/openapi.json"), ("GET", "/healthz"), ("GET", "/readyz")}
        assert served - outside == _operations(DOCUMENT)

    def test_operations_name_their_facade_method(self) -> None:
        for row in CONTRACT:
            operation = DOCUMENT["paths"][row.path][row.method.lower()]
            assert operation["operationId"] == row.operation
            assert operation["x-contract-status"] == row.status.value
            assert operation["summary"] == row.purpose

    def test_bearer_scheme_and_security(self) -> None:
        scheme = DOCUMENT["components"]["securitySchemes"]["bearerAuth"]
        assert scheme == {**scheme, "type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
        assert DOCUMENT["security"] == [{"bearerAuth": []}]
        infer = DOCUMENT["paths"]["/gnn/infer"]["post"]
        assert infer["security"] == []
        assert set(infer["responses"]) == {"404"}

    def test_errors_are_documented_as_problems(self) -> None:
        for row in CONTRACT:
            responses = DOCUMENT["paths"][row.path][row.method.lower()]["responses"]
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    content = response["content"]
                    assert list(content) == ["application/problem+json"]
            if not row.always_refused:
                assert {"401", "403", "413", "500"} <= responses.keys()
                assert "WWW-Authenticate" in responses["401"]["headers"]
            if row.reserved:
                assert "501" in responses

    def test_bodies_and_parameters(self) -> None:
        find = DOCUMENT["paths"]["/projects/{project_id}/semantic/find"]["post"]
        assert find["requestBody"]["required"] is True
        assert "415" in find["responses"]
        (param,) = find["parameters"]
        assert param["name"] == "project_id"
        assert param["schema"]["pattern"].startswith("^[A-Za-z0-9]")
        export = DOCUMENT["paths"]["/sessions/{session_id}/export/{fmt}"]["post"]
        names = [p["name"] for p in export["parameters"]]
        assert names == ["session_id", "fmt", "graph_format"]
        assert "Content-Disposition" in export["responses"]["200"]["headers"]

    def test_schemas_are_valid_json_schema(self) -> None:
        for schema in DOCUMENT["components"]["schemas"].values():
            jsonschema.Draft202012Validator.check_schema(schema)

    def test_a_facade_without_a_method_is_documented_openly(self) -> None:
        class Bare:
            pass

        document = build_openapi(Bare)
        assert _operations(document) == _operations(DOCUMENT)
        signals = document["paths"]["/projects/{project_id}/semantic/signals"]["get"]
        assert signals["responses"]["200"]["content"]["application/json"]["schema"] == {}


class TestResponsesMatchTheDocument:
    """Real answers validate against the schemas the document gives them."""

    @pytest.fixture
    def client(self) -> TestClient:
        service = semreport.open("memory://", require_caller=True)
        auth = StaticTokenAuthenticator({"op": Principal.local("op")})
        return TestClient(create_app(service, auth))

    def _schema(self, path: str, method: str, status: str, media: str) -> dict[str, Any]:
        response = DOCUMENT["paths"][path][method]["responses"][status]
        schema: dict[str, Any] = response["content"][media]["schema"]
        return schema

    def test_model_status(self, client: TestClient) -> None:
        body = client.get("/gnn/status", headers={"Authorization": "Bearer op"}).json()
        validator(self._schema("/gnn/status", "get", "200", "application/json")).validate(body)

    def test_problems(self, client: TestClient) -> None:
        schema = self._schema("/gnn/status", "get", "401", "application/problem+json")
        validator(schema).validate(client.get("/gnn/status").json())
        response = client.post(
            "/catalogue/match",
            headers={"Authorization": "Bearer op", "Content-Type": "application/json"},
            content=b"[]",
        )
        validator(schema).validate(response.json())
        assert response.json()["errors"]


class Colour(enum.Enum):
    RED = "red"


@attrs.frozen
class Node:
    name: str
    children: tuple[Node, ...] = ()


@attrs.frozen
class Everything:
    when: dt.datetime
    colour: Colour
    kind: Literal["a", "b"]
    scores: FrozenDict[str, float]
    labels: frozenset[str]
    tree: Node
    anything: Any = None
    maybe: int | None = None
    flag: bool = False
    mapping: dict[str, int] = attrs.Factory(dict)
    items: list[int] = attrs.Factory(list)


class TestSchemaGeneration:
    """attrs classes become JSON Schema the way the wire converter writes them."""

    def test_kinds(self) -> None:
        schemas = _Schemas()
        assert schemas.of(Everything) == {"$ref": "#/components/schemas/Everything"}
        props = schemas.components["Everything"]["properties"]
        assert props["when"] == {"type": "string", "format": "date-time"}
        assert props["colour"] == {"type": "string", "enum": ["red"]}
        assert props["kind"] == {"enum": ["a", "b"]}
        assert props["scores"] == {"type": "object", "additionalProperties": {"type": "number"}}
        assert props["labels"] == {
            "type": "array",
            "uniqueItems": True,
            "items": {"type": "string"},
        }
        assert props["anything"] == {}
        assert props["maybe"] == {"anyOf": [INTEGER, {"type": "null"}]}
        assert props["mapping"]["additionalProperties"] == INTEGER
        assert props["items"] == {"type": "array", "items": INTEGER}
        assert schemas.components["Everything"]["required"] == [
            "when",
            "colour",
            "kind",
            "scores",
            "labels",
            "tree",
        ]
        node = schemas.components["Node"]
        assert node["properties"]["children"]["items"] == {"$ref": "#/components/schemas/Node"}

    def test_domain_constraints(self) -> None:
        schemas = _Schemas()
        schemas.of(semreport.Decision)
        decision = schemas.components["Decision"]["properties"]
        assert decision["id"]["pattern"].startswith("^[A-Za-z0-9]")
        assert decision["attributes"]["propertyNames"]["pattern"].startswith("^[A-Za-z_]")

    def test_unknown_types_are_refused(self) -> None:
        with pytest.raises(TypeError, match="no JSON Schema"):
            _Schemas().of(complex)


@attrs.frozen
class Criteria:
    text: str
    page_size: int = 20


@attrs.frozen
class ExportDigest:
    scheme: str
    records_root: str


@attrs.frozen
class Export:
    html: str
    digest: ExportDigest


class Facade:
    def find(
        self, project_id: str, criteria: Criteria | Mapping[str, Any], *, caller: Any = None
    ) -> Node:
        raise NotImplementedError

    def export_report(self, project_id: str, *, caller: Any = None) -> Export:
        raise NotImplementedError


class TestSchemaEdges:
    """Less common annotations."""

    def test_annotated_without_a_known_constraint_uses_its_type(self) -> None:
        assert _Schemas().of(Annotated[int, "just a note"]) == INTEGER

    def test_mapping_kinds(self) -> None:
        assert _Schemas().of(MutableMapping[str, int]) == {"type": "object"}
        assert _Schemas().of(Mapping[str, int])["additionalProperties"] == INTEGER
        assert _Schemas().of(dict) == {"type": "object"}

    def test_bodies_come_from_the_contract_and_results_from_annotations(self) -> None:
        document = build_openapi(Facade)
        find = document["paths"]["/projects/{project_id}/semantic/find"]["post"]
        body = find["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": "#/components/schemas/Criteria"}
        # The contract row names the library's Criteria, whatever the facade annotates.
        assert "page_size" not in document["components"]["schemas"]["Criteria"]["properties"]
        assert find["responses"]["200"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/Node"
        }
        export = document["paths"]["/projects/{project_id}/report/export"]["post"]
        ok = export["responses"]["200"]
        assert set(ok["headers"]) == {
            "SemReport-Digest-Scheme",
            "SemReport-Digest-Records-Root",
            "ETag",
        }
        envelope = ok["content"]["application/json"]["schema"]
        assert envelope["properties"]["digest"] == {"$ref": "#/components/schemas/ExportDigest"}

    def test_the_module_runners(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(sys, "argv", ["openapi", "--check"])
        with pytest.raises(SystemExit) as exc:
            runpy.run_module("semreport.http.openapi", run_name="__main__")
        assert exc.value.code == 0
        monkeypatch.setattr(sys, "argv", ["semreport.http", "--url", "memory://"])
        monkeypatch.delenv("SEMREPORT_DEV_TOKEN", raising=False)
        monkeypatch.delenv("SEMREPORT_OIDC_ISSUER", raising=False)
        with pytest.raises(SystemExit) as exc:
            runpy.run_module("semreport.http", run_name="__main__")
        assert exc.value.code == 2


class TestLimits:
    """Every named limit is stated in the document, and its schemas enforce them."""

    def test_every_limit_is_listed(self) -> None:
        from semreport import limits

        assert DOCUMENT["x-limits"] == {name: getattr(limits, name) for name in limits.__all__}

    def test_schemas_carry_the_limits(self) -> None:
        from semreport import limits

        schemas = DOCUMENT["components"]["schemas"]
        criteria = schemas["Criteria"]["properties"]
        assert criteria["text"]["maxLength"] == limits.MAX_QUERY_TEXT
        assert criteria["limit"]["maximum"] == limits.MAX_PAGE_SIZE
        partial = schemas["PartialDecision"]["properties"]
        assert partial["tags"]["maxItems"] == limits.MAX_EXEMPLAR_TAGS
        assert partial["attributes"]["maxProperties"] == limits.MAX_EXEMPLAR_ATTRIBUTES
        assert partial["statement"]["maxLength"] == limits.MAX_EXEMPLAR_TEXT
        assert (
            "1024 KiB"
            in DOCUMENT["paths"]["/projects/{project_id}/semantic/find"]["post"]["responses"][
                "413"
            ]["description"]
        )

    def test_an_oversized_exemplar_fails_the_schema_and_the_facade_alike(self) -> None:
        from semreport import InvalidRequest, limits, sample

        exemplar = {
            "decision": {
                "title": "x",
                "attributes": {f"a{n}": n for n in range(limits.MAX_EXEMPLAR_ATTRIBUTES + 1)},
            }
        }
        schema = {
            **DOCUMENT["components"]["schemas"]["Exemplar"],
            "components": DOCUMENT["components"],
        }
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(exemplar, schema)
        with semreport.open("memory://") as sr:
            sample.load_into(sr)
            with pytest.raises(InvalidRequest) as caught:
                sr.similar("lindenhof", exemplar)
        assert [e.path for e in caught.value.errors] == ["$.decision.attributes"]


class TestRowsDriveTheDocument:
    """Limits, links, conditional answers and 503s come from the contract rows and limits."""

    def test_as_of_states_its_range(self) -> None:
        report = DOCUMENT["paths"]["/projects/{project_id}/report"]["get"]
        (as_of,) = [p for p in report["parameters"] if p["name"] == "as_of"]
        assert as_of["schema"] == {"type": "integer", "minimum": 0, "maximum": 2**53 - 1}

    def test_bodies_state_the_byte_limit(self) -> None:
        from semreport import limits

        for row in CONTRACT:
            if row.body is None or row.always_refused:
                continue
            body = DOCUMENT["paths"][row.path][row.method.lower()]["requestBody"]
            assert body["x-max-bytes"] == limits.MAX_BODY_BYTES

    def test_an_exemplar_needs_exactly_one_of_its_fields(self) -> None:
        exemplar = DOCUMENT["components"]["schemas"]["Exemplar"]
        required = sorted(branch["required"][0] for branch in exemplar["oneOf"])
        assert required == ["decision", "decision_id"]

    def test_find_links_its_next_page(self) -> None:
        find = DOCUMENT["paths"]["/projects/{project_id}/semantic/find"]["post"]
        link = find["responses"]["200"]["links"]["next_page"]
        assert link["operationId"] == "find"
        assert link["requestBody"]["cursor"] == "$response.body#/next_cursor"
        assert link["requestBody"]["text"] == "$request.body#/text"
        assert link["x-schemathesis"] == {"merge_body": False}

    def test_versioned_rows_answer_304_and_every_503_says_when_to_retry(self) -> None:
        for row in CONTRACT:
            responses = DOCUMENT["paths"][row.path][row.method.lower()]["responses"]
            assert ("304" in responses) is (row.etag is not None)
            if "503" in responses:
                assert "Retry-After" in responses["503"]["headers"]
            assert responses.get("304", {}).get("headers", {}).keys() <= {"ETag"}

    def test_operations_state_lane_and_time_limit(self) -> None:
        for row in CONTRACT:
            operation = DOCUMENT["paths"][row.path][row.method.lower()]
            if not row.always_refused:
                assert operation["x-lane"] == row.lane.value
                assert operation["x-time-limit-seconds"] == row.time_limit

    def test_the_adapter_has_no_switch_on_operation_names(self) -> None:
        from pathlib import Path

        import semreport.http

        for path in Path(semreport.http.__file__).parent.glob("*.py"):
            source = path.read_text()
            for row in CONTRACT:
                assert f'"{row.operation}"' not in source, (path.name, row.operation)
