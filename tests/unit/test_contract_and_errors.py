"""Unit tests for the contract table and the error hierarchy."""

from __future__ import annotations

import inspect

import pytest

import semreport
from semreport import CONTRACT, AuthKind, EndpointStatus, FieldError, InvalidRequest
from semreport.contract import endpoint
from semreport.domain import _errors

EXPECTED = {
    ("GET", "/projects/{project_id}/semantic/signals"): ("Implemented", "user"),
    ("POST", "/projects/{project_id}/semantic/find"): ("Partial", "user"),
    ("POST", "/projects/{project_id}/semantic/similar"): ("Partial", "user"),
    ("GET", "/gnn/status"): ("Planned", "operator"),
    ("POST", "/gnn/infer"): ("Planned", "operator"),
    ("POST", "/sessions/{session_id}/export/{fmt}"): ("Partial", "user"),
    ("GET", "/projects/{project_id}/report"): ("Implemented", "user"),
    ("POST", "/projects/{project_id}/report/export"): ("Implemented", "user"),
    ("POST", "/reference/embed"): ("Planned (reserved)", "user"),
    ("POST", "/catalogue/match"): ("Designed (reserved)", "user"),
}


class TestContract:
    """The endpoint table matches the design, row for row."""

    def test_rows(self) -> None:
        assert {(r.method, r.path): (r.status.value, r.auth.value) for r in CONTRACT} == EXPECTED
        assert len(CONTRACT) == len(EXPECTED)

    def test_no_version_prefix_and_required_path_ids(self) -> None:
        for row in CONTRACT:
            assert not row.path.startswith("/v")
            assert all(p in row.path for p in (f"{{{n}}}" for n in row.path_params))

    def test_operations_are_unique_and_findable(self) -> None:
        operations = [row.operation for row in CONTRACT]
        assert len(set(operations)) == len(operations)
        assert endpoint("gnn_infer").always_refused
        assert endpoint("signals").path_params == ("project_id",)
        assert endpoint("export_session").path_params == ("session_id", "fmt")
        with pytest.raises(KeyError):
            endpoint("nothing")

    def test_reserved_and_auth(self) -> None:
        assert {r.operation for r in CONTRACT if r.reserved} == {
            "embed_reference",
            "match_catalogue",
        }
        assert AuthKind.OPERATOR.role is semreport.Role.OPERATOR
        assert EndpointStatus("Partial") is EndpointStatus.PARTIAL

    def test_project_rows_are_scoped(self) -> None:
        for row in CONTRACT:
            if "project_id" in row.path_params or "session_id" in row.path_params:
                assert row.project_scoped, row


ERRORS = {
    "InvalidRequest": ("INVALID_REQUEST", 400),
    "Unauthenticated": ("UNAUTHENTICATED", 401),
    "Forbidden": ("FORBIDDEN", 403),
    "ProjectNotFound": ("PROJECT_NOT_FOUND", 404),
    "SessionNotFound": ("SESSION_NOT_FOUND", 404),
    "DecisionNotFound": ("DECISION_NOT_FOUND", 404),
    "UnsupportedExportFormat": ("UNSUPPORTED_EXPORT_FORMAT", 404),
    "GnnModelNotLoaded": ("GNN_MODEL_NOT_LOADED", 404),
    "PayloadTooLarge": ("PAYLOAD_TOO_LARGE", 413),
    "ReferenceEmbedNotAvailable": ("REFERENCE_EMBED_NOT_AVAILABLE", 501),
    "CatalogueProfileMatchingNotConfigured": ("CATALOGUE_PROFILE_MATCHING_NOT_CONFIGURED", 501),
}


class TestErrors:
    """One hierarchy with stable codes; the domain knows no HTTP."""

    @pytest.mark.parametrize(("name", "expected"), sorted(ERRORS.items()))
    def test_design_codes(self, name: str, expected: tuple[str, int]) -> None:
        cls = getattr(semreport, name)
        assert issubclass(cls, semreport.SemReportError)
        assert cls.code == expected[0]

    @pytest.mark.parametrize(("name", "expected"), sorted(ERRORS.items()))
    def test_the_http_adapter_maps_each_code_to_its_status(
        self, name: str, expected: tuple[str, int]
    ) -> None:
        from semreport.http import status_of

        assert status_of(getattr(semreport, name)("x")) == expected[1]

    def test_domain_errors_carry_no_http(self) -> None:
        for _, cls in inspect.getmembers(_errors, inspect.isclass):
            for member in ("http_status", "title", "to_problem"):
                assert not hasattr(cls, member), (cls, member)

    def test_every_error_is_public_with_a_unique_code(self) -> None:
        classes = [
            obj
            for _, obj in inspect.getmembers(_errors, inspect.isclass)
            if issubclass(obj, semreport.SemReportError)
        ]
        codes = [cls.code for cls in classes]
        assert len(set(codes)) == len(codes)
        for cls in classes:
            assert getattr(semreport, cls.__name__) is cls
            assert cls.__doc__

    def test_a_message_defaults_to_the_class_summary(self) -> None:
        assert str(semreport.Forbidden()) == (
            "The caller lacks the role or the project grant the use case requires"
        )
        assert semreport.ProjectNotFound("p").message == "p"

    def test_problem_document(self) -> None:
        from semreport.http import problem

        err = semreport.ProjectNotFound("project 'p' holds no records")
        assert problem(err) == {
            "type": "https://semreport.invalid/problems/project-not-found",
            "title": "Project not found",
            "status": 404,
            "detail": "project 'p' holds no records",
            "code": "PROJECT_NOT_FOUND",
        }

    def test_invalid_request_carries_paths(self) -> None:
        from semreport.http import problem

        err = InvalidRequest([FieldError("$.a", "bad"), FieldError("$.b[2]", "worse")])
        assert str(err) == "invalid request: $.a: bad; $.b[2]: worse"
        assert problem(err)["errors"] == [
            {"path": "$.a", "message": "bad"},
            {"path": "$.b[2]", "message": "worse"},
        ]
        assert InvalidRequest("plain").errors == (FieldError("$", "plain"),)
        assert str(InvalidRequest([])) == "invalid request"
        assert InvalidRequest.at("$.x", "no").errors == (FieldError("$.x", "no"),)

    def test_a_plug_in_error_takes_its_base_class_status(self) -> None:
        from semreport.http import status_of

        class QuotaExceeded(semreport.StorageError):
            """A plug-in's own storage error."""

            code = "QUOTA_EXCEEDED"

        assert status_of(QuotaExceeded()) == 503


class TestPublicApi:
    """The package exports a sorted, documented public API."""

    def test_all_is_sorted_and_importable(self) -> None:
        names = semreport.__all__
        assert len(set(names)) == len(names)
        for name in names:
            assert hasattr(semreport, name), name

    def test_public_names_are_documented(self) -> None:
        for name in semreport.__all__:
            obj = getattr(semreport, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                assert obj.__doc__, name
