"""The error tree: every class in rpa_mcp/errors.py, documented, drawn in the module docstring."""

from __future__ import annotations

import re

from rpa_mcp import docs_gen, errors


def test_every_error_class_lives_in_the_errors_module_with_a_docstring():
    docs_gen._import_all()  # an error class defined anywhere else would now be a subclass too
    classes = errors.all_error_classes()
    assert [c.__name__ for c in classes if c.__module__ != "rpa_mcp.errors"] == []
    assert [c.__name__ for c in classes if not (c.__dict__.get("__doc__") or "").strip()] == []


def test_the_tree_at_the_top_of_the_module_names_every_class_with_its_code_and_status():
    drawn = {
        m["name"]: (m["code"], int(m["status"]))
        for m in re.finditer(r"(?P<name>[A-Z]\w+)\s+(?P<code>[a-z-]+)\s+(?P<status>\d{3})", errors.__doc__ or "")
    }
    assert drawn == {c.__name__: (c.code, c.http_status) for c in errors.all_error_classes()}


def test_codes_are_unique_and_kebab_case():
    codes = [c.code for c in errors.all_error_classes()]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", code) for code in codes)


def test_the_generated_errors_page_says_something_for_every_code():
    page = docs_gen.render_errors()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) == len(errors.all_error_classes())
    assert all(not line.rstrip().endswith("| — |") for line in rows)
