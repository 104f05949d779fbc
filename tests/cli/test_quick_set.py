"""The quick set (`python -m pytest -m quick`, README's Tests): one test for each command,
MCP tool and hook event, and no more, so that it stays under a minute. A new command,
tool or event fails here until a quick test covers it."""

from __future__ import annotations

import ast

from helpers import ROOT

from git_aide.agents.hooks.events import EVENTS
from git_aide.agents.mcp.schema import TOOLS
from git_aide.cli.main import main

#: README's tour runs these commands as a newcomer would (tests/cli/test_readme.py).
TOUR = "cli/test_readme.py::test_readme_blocks_run_clean_in_order"
HOOKS = "agents/test_agent_hooks.py::"

#: What covers each command, MCP tool (`mcp:NAME`) and hook event (`hook:EVENT`).
QUICK = {
    **{command: TOUR for command in (
        "init", "remember", "recall", "search", "list", "show", "update", "forget", "diff",
        "log", "validate", "audit", "doctor", "textconv")},
    "completion": "cli/test_completion.py::test_bash_completes_commands_options_and_layers",
    "config": "cli/test_config.py::test_lists_every_key_its_value_default_and_origin",
    "export": "agents/test_rules_export.py::test_block_keeps_user_text_byte_for_byte",
    "import": "agents/test_rules_import.py::test_reimport_skips_and_counts_what_exists",
    "map": "app/test_map.py::test_the_tree_in_text_marks_what_a_lead_looks_for",
    "daemon": "warm/test_served.py::test_reading_commands_answer_the_same_through_the_server",
    "help": "cli/test_pager.py::test_help_lists_the_commands_and_h_stays_short",
    "index": "app/test_search.py::test_index_command",
    "stats": "app/test_search.py::test_stats_figures",
    "merge-driver":
        "drivers/test_merge.py::test_different_fields_edited_in_two_clones_are_both_kept",
    "resolve": "app/test_resolve.py::test_modify_delete_in_a_cherry_pick",
    "semantic": "cli/test_semantic_cli.py::test_status_without_a_model",
    "mcp": "agents/test_mcp.py::test_every_tool_over_stdio",
    **{f"mcp:{tool['name']}": "agents/test_mcp.py::test_every_tool_over_stdio"
       for tool in TOOLS},
    "hook": HOOKS + "test_pre_tool_use_injects_the_files_memories_once_per_session",
    "hook:session-start": HOOKS + "test_session_start_injects_the_always_on_memories",
    "hook:pre-tool-use": HOOKS + "test_pre_tool_use_injects_the_files_memories_once_per_session",
    "hook:post-tool-use": HOOKS + "test_post_tool_use_records_what_the_agent_fetched",
    "hook:user-prompt": HOOKS + "test_user_prompt_nudges_on_decisions_only",
    "hook:stop": HOOKS + "test_stop_only_with_reflect_and_never_loops",
    # the same test ends its session with pre-compact and reads the file's memories again
    "hook:pre-compact": HOOKS + "test_pre_tool_use_injects_the_files_memories_once_per_session",
}


def marked_quick() -> set[str]:
    """Every test function of the suite decorated with @pytest.mark.quick."""
    found = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and any(
                    ast.unparse(d) == "pytest.mark.quick" for d in node.decorator_list):
                found.add(f"{path.relative_to(ROOT / 'tests').as_posix()}::{node.name}")
    return found


def test_every_command_tool_and_event_has_a_quick_test() -> None:
    wanted = {*main.commands, *(f"mcp:{t['name']}" for t in TOOLS),
              *(f"hook:{e}" for e in EVENTS)}
    assert set(QUICK) == wanted, (wanted - set(QUICK), set(QUICK) - wanted)


def test_the_quick_set_is_those_tests_and_no_more() -> None:
    assert marked_quick() == set(QUICK.values())
