"""Issue 27: what models actually write, accepted; what each rule stops, still refused.

Per rule, the idioms the gate now accepts (each with zero findings) and the neighbouring
spellings it keeps refusing, with the exact code on the marked line (`#!`). The sandbox side
of the same rules (the RestrictedPython policy, the worker's guards) is in
tests/sandbox/test_reserved_names.py and tests/sandbox/test_grown_idioms.py.
"""

from __future__ import annotations

import pytest

from dyntools.gate import check_source

HEADER = '''"""A tool."""
{imports}
NAME = "sample_tool"
DESCRIPTION = "Does a sample thing."
PARAMS = {{"type": "object", "properties": {{"text": {{"type": "string"}}}}}}
{top}
'''


def tool(body: str = "    return {'ok': True}\n", *, top: str = "", imports: str = "") -> str:
    return HEADER.format(imports=imports, top=top) + "\ndef run(params):\n" + body


def marked(source: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if line.endswith("#!"))


def findings(source: str) -> set[tuple[str, int]]:
    return {(f.code, f.line) for f in check_source(source).findings}


def assert_accepted(source: str) -> None:
    report = check_source(source)
    assert report.accepted, [(f.line, f.code, f.message) for f in report.findings]


def assert_refused(source: str, code: str) -> None:
    assert (code, marked(source)) in findings(source), check_source(source).findings


# -- underscore names are names ------------------------------------------------------------

UNDERSCORE_ACCEPTED = {
    "def": tool("    return {'x': _helper(1)}\n", top="def _helper(x):\n    return x\n"),
    "parameter": tool("    return {'x': helper(1)}\n",
                      top="def helper(_x, *_rest, _k=1, **_more):\n    return _x + _k\n"),
    "lambda": tool("    double = lambda _x: _x * 2\n    return {'x': double(2)}\n"),
    "local": tool("    _total = 1\n    _total += 1\n    return {'x': _total}\n"),
    "module constant": tool("    return {'x': _LIMIT + len(_seen)}\n",
                            top="_LIMIT = 3\n_seen = []\n"),
    "for": tool("    return {'x': [_i for _i in range(3)]}\n"),
    "for statement": tool("    out = 0\n    for _i, _j in [(1, 2)]:\n        out += _i\n"
                          "    return {'x': out}\n"),
    "with": tool("    with decimal.localcontext() as _ctx:\n        _ctx.prec\n"
                 "    return {'x': 1}\n", imports="import decimal"),
    "except": tool("    try:\n        int('x')\n    except ValueError as _err:\n"
                   "        return {'x': str(_err)}\n    return {}\n"),
    "walrus": tool("    if (_n := len(params)) > 0:\n        return {'x': _n}\n    return {}\n"),
    "import alias": tool("    return {'x': _json.dumps(1), 'y': _sub('a', 'b', 'a')}\n",
                         imports="import json as _json\nfrom re import sub as _sub"),
    "global": tool("    global _calls\n    _calls = 1\n    return {'x': _calls}\n",
                   top="_calls = 0\n"),
    "digit after the underscore": tool("    _2d = [[1]]\n    return {'x': _2d}\n"),
    "a lone underscore": tool("    for _ in range(2):\n        pass\n    return {}\n"),
}


@pytest.mark.parametrize("case", sorted(UNDERSCORE_ACCEPTED))
def test_underscore_names_the_tool_binds_are_accepted(case: str) -> None:
    assert_accepted(UNDERSCORE_ACCEPTED[case])


UNDERSCORE_REFUSED = [
    # (a binding or read, the code on the marked line)
    (tool("    _getattr_ = 1  #!\n    return {}\n"), "DT301"),
    (tool("    return {'x': helper(1)}\n", top="def helper(_write_):  #!\n    return 1\n"),
     "DT301"),
    (tool("    f = lambda _getitem_: 1  #!\n    return {}\n"), "DT301"),
    (tool("    return {'x': [_getiter_ for _getiter_ in []]}  #!\n"), "DT301"),
    (tool("    try:\n        pass\n    except ValueError as _apply_:  #!\n        pass\n"
          "    return {}\n"), "DT301"),
    (tool("    if (_call_ := 1):  #!\n        pass\n    return {}\n"), "DT301"),
    (tool("    return {}\n", imports="import json as _getattr_  #!"), "DT301"),
    (tool("    return {}\n", imports="from re import sub as _print  #!"), "DT301"),
    (tool("    global _getattr_  #!\n    return {}\n"), "DT301"),
    (tool("    return {}\n", top="_write_ = 1  #!\n"), "DT301"),
    (tool("    _tmp0 = 1  #!\n    return {}\n"), "DT301"),
    (tool("    __secret = 1  #!\n    return {}\n"), "DT301"),
    (tool("    _trailing_ = 1  #!\n    return {}\n"), "DT301"),
    (tool("    return {'x': __builtins__}  #!\n"), "DT301"),
    (tool("    return {'x': __import__}  #!\n"), "DT301"),
    (tool("    return {'x': __name__}  #!\n"), "DT301"),
    (tool("    return {'x': _getattr_}  #!\n"), "DT301"),
    # read, never bound: not the tool's own name
    (tool("    return {'x': _unbound}  #!\n"), "DT301"),
    # keyword arguments never start with one
    (tool("    return {'x': dict(_x=1)}  #!\n"), "DT301"),
    (tool("    return {'x': dict(_=1)}  #!\n"), "DT301"),
    # a module's private member is not the tool's name
    (tool("    return {}\n", imports="from re import _compile  #!"), "DT301"),
    # attributes stay refused
    (tool("    return {'x': params._data}  #!\n"), "DT302"),
    # def names: two underscores, or a reserved name
    (tool("    return {}\n", top="def __helper():  #!\n    return 1\n"), "DT604"),
    (tool("    return {}\n", top="def _getattr_(o, n):  #!\n    return 1\n"), "DT301"),
]


@pytest.mark.parametrize(("source", "code"), UNDERSCORE_REFUSED)
def test_reserved_and_unbound_underscore_names_are_refused(source: str, code: str) -> None:
    assert_refused(source, code)


# -- memoisation decorators ----------------------------------------------------------------

MEMO_HELPER = "def helper(n):\n    return n if n < 2 else helper(n - 1) + helper(n - 2)\n"
DECORATORS_ACCEPTED = {
    "bare": ("from functools import lru_cache", "@lru_cache"),
    "called empty": ("from functools import lru_cache", "@lru_cache()"),
    "maxsize None": ("from functools import lru_cache", "@lru_cache(maxsize=None)"),
    "positional maxsize": ("from functools import lru_cache", "@lru_cache(128)"),
    "maxsize and typed": ("from functools import lru_cache",
                          "@lru_cache(maxsize=64, typed=True)"),
    "positional both": ("from functools import lru_cache", "@lru_cache(64, False)"),
    "module attribute": ("import functools", "@functools.lru_cache(maxsize=None)"),
    "cache": ("from functools import cache", "@cache"),
    "functools.cache": ("import functools", "@functools.cache"),
    "aliased member": ("from functools import lru_cache as memo", "@memo"),
    "aliased module": ("import functools as ft", "@ft.cache"),
}


@pytest.mark.parametrize("case", sorted(DECORATORS_ACCEPTED))
def test_functools_memoisation_decorators_are_accepted(case: str) -> None:
    imports, decorator = DECORATORS_ACCEPTED[case]
    assert_accepted(tool("    return {'x': helper(10)}\n", imports=imports,
                         top=f"{decorator}\n{MEMO_HELPER}"))


def test_a_nested_memoised_helper_with_a_function_level_import_is_accepted() -> None:
    assert_accepted(tool(
        "    from functools import lru_cache\n\n"
        "    @lru_cache(maxsize=None)\n"
        "    def ways(n):\n"
        "        return 1 if n < 2 else ways(n - 1) + ways(n - 2)\n\n"
        "    return {'x': ways(20)}\n"))


DECORATORS_REFUSED = [
    ("import functools", "@functools.lru_cache(maxsize=len('ab'))  #!"),
    ("import functools", "@functools.lru_cache(maxsize='8')  #!"),
    ("import functools", "@functools.lru_cache(typed=1)  #!"),
    ("import functools", "@functools.lru_cache(maxsize=1, maxsize2=2)  #!"),
    ("import functools", "@functools.lru_cache(1, 2, 3)  #!"),
    ("import functools", "@functools.lru_cache(*[1])  #!"),
    ("import functools", "@functools.lru_cache(**{'maxsize': 1})  #!"),
    ("import functools", "@functools.partial  #!"),
    ("import functools", "@functools.wraps(len)  #!"),
    ("import functools", "@functools.lru_cache.cache_info  #!"),
    ("", "@staticmethod  #!"),
    ("", "@lru_cache  #!"),  # never imported
    ("import json", "@json.loads  #!"),
    ("from json import loads as lru_cache", "@lru_cache  #!"),
    ("import json as functools", "@functools.lru_cache  #!"),
]


@pytest.mark.parametrize(("imports", "decorator"), DECORATORS_REFUSED)
def test_every_other_decorator_is_refused(imports: str, decorator: str) -> None:
    assert_refused(tool("    return {'x': helper(1)}\n", imports=imports,
                        top=f"{decorator}\n{MEMO_HELPER}"), "DT103")


def test_run_may_not_be_memoised() -> None:
    source = HEADER.format(imports="from functools import cache", top="") + (
        "\n@cache  #!\ndef run(params):\n    return {}\n")
    assert_refused(source, "DT103")


def test_a_decorator_name_rebound_in_its_scope_is_not_functools() -> None:
    rebound = tool(
        "    from functools import lru_cache\n"
        "    lru_cache = len\n\n"
        "    @lru_cache  #!\n"
        "    def helper(n):\n"
        "        return n\n\n"
        "    return {'x': helper(1)}\n")
    assert_refused(rebound, "DT103")
    local = tool(
        "    cache = len\n\n"
        "    @cache  #!\n"
        "    def helper(n):\n"
        "        return n\n\n"
        "    return {'x': helper(1)}\n", imports="from functools import cache")
    assert_refused(local, "DT103")
    shadowed = tool(
        "    return {'x': outer(len)}\n", imports="from functools import cache",
        top="def outer(cache):\n    @cache  #!\n    def helper(n):\n        return n\n"
            "    return helper(1)\n")
    assert_refused(shadowed, "DT103")


# -- collections.abc: isinstance checks and annotations --------------------------------------

ABC_ACCEPTED = {
    "isinstance": ("from collections.abc import Iterable",
                   "    return {'x': isinstance(params, Iterable)}\n"),
    "tuple": ("from collections.abc import Mapping, Sequence",
              "    return {'x': isinstance(params, (str, Mapping, (Sequence,)))}\n"),
    "issubclass": ("from collections.abc import Hashable",
                   "    return {'x': issubclass(int, Hashable)}\n"),
    "dotted": ("import collections.abc",
               "    return {'x': isinstance(params, collections.abc.Mapping)}\n"),
    "module alias": ("from collections import abc",
                     "    return {'x': isinstance(params, abc.Sized)}\n"),
    "annotation": ("from collections.abc import Callable, Iterable, Mapping",
                   "    def apply(f: Callable[[int], int], xs: Iterable[int]) -> Mapping[str, int]:"
                   "\n        return {'n': sum(f(x) for x in xs)}\n"
                   "    return apply(abs, [1, -2])\n"),
    "function-level import": ("", "    from collections.abc import Iterable\n"
                                  "    return {'x': isinstance(params, Iterable)}\n"),
}


@pytest.mark.parametrize("case", sorted(ABC_ACCEPTED))
def test_abcs_in_type_checks_and_annotations_are_accepted(case: str) -> None:
    imports, body = ABC_ACCEPTED[case]
    assert_accepted(tool(body, imports=imports))


ABC_REFUSED = [
    ("from collections.abc import Iterable", "    check = Iterable  #!\n    return {}\n"),
    ("from collections.abc import Iterable", "    return {'x': repr(Iterable)}  #!\n"),
    ("from collections.abc import Iterable", "    Iterable.register(list)  #!\n    return {}\n"),
    ("import collections.abc",
     "    collections.abc.Iterable.register(list)  #!\n    return {}\n"),
    ("from collections import abc", "    abc.Iterable.register(list)  #!\n    return {}\n"),
    ("from collections.abc import Iterable",
     "    return {'x': isinstance(params, Iterable.register)}  #!\n"),
    ("from collections.abc import Iterable",
     "    return {'x': isinstance(Iterable, object)}  #!\n"),
    ("from collections.abc import Iterable",
     "    return {'x': [isinstance(params, t) for t in [Iterable]]}  #!\n"),
    ("from collections.abc import Iterable",
     "    return {'x': isinstance(params, Iterable, extra=1)}  #!\n"),
    ("from collections.abc import Iterable",
     "    isinstance = len\n    return {'x': isinstance(params, Iterable)}  #!\n"),
    ("from collections.abc import Iterable",
     "    def keep(kind=Iterable):  #!\n        return kind\n    return {}\n"),
]


@pytest.mark.parametrize(("imports", "body"), ABC_REFUSED)
def test_abcs_anywhere_else_are_refused(imports: str, body: str) -> None:
    assert_refused(tool(body, imports=imports), "DT210")


def test_register_stays_a_denied_attribute_on_any_name() -> None:
    for imports, expression in [
        ("from typing import Iterable", "Iterable.register"),
        ("import collections", "collections.UserDict.register"),
        ("", "params.register"),
    ]:
        assert_refused(tool(f"    x = {expression}  #!\n    return {{}}\n", imports=imports),
                       "DT303")


# -- lowercase module constants --------------------------------------------------------------

@pytest.mark.parametrize("top", [
    'vowels = "aeiou"\n',
    'table = {"I": 1, "V": 5}\nrows = [(1, "a"), (2, "b")]\n',
    "low, high = 1, 9\n",
    "maxRetries = 3\n",
    "_INT_MAX = 2147483647\n",
    "limit: int = 5\n",
    "weights = {1, 2}\n",
])
def test_lowercase_constants_are_accepted(top: str) -> None:
    assert_accepted(tool(top=top))


@pytest.mark.parametrize(("top", "code"), [
    ("len = 1  #!\n", "DT106"),
    ("print = 1  #!\n", "DT106"),
    ("input = 1  #!\n", "DT106"),
    ("type = 1  #!\n", "DT106"),
    ("run = 1  #!\n", "DT106"),
    ("host = 1  #!\n", "DT106"),
    ("inputs = 1  #!\n", "DT106"),
    ("tools = 1  #!\n", "DT106"),
    ("result = 1  #!\n", "DT106"),
    ("name = 'x'  #!\n", "DT106"),
    ("Name = 'x'  #!\n", "DT106"),
    ("params = {}  #!\n", "DT106"),
    ("Examples = []  #!\n", "DT106"),
    ("description = ''  #!\n", "DT106"),
    ("capabilities = {}  #!\n", "DT106"),
    ("low, tools = 1, 2  #!\n", "DT106"),
    ("table = dict(a=1)  #!\n", "DT107"),
    ("table = {}\ntable = {}  #!\n", "DT108"),
    ("_getattr_ = 1  #!\n", "DT301"),
])
def test_lowercase_constants_keep_every_other_rule(top: str, code: str) -> None:
    assert_refused(tool(top=top), code)


# -- global ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("top", "body"), [
    ("counter = 0\n", "    global counter\n    counter += 1\n    return {'x': counter}\n"),
    ("COUNTER = 0\n", "    global COUNTER\n    COUNTER = 5\n    return {'x': COUNTER}\n"),
    ("limit: int = 3\n", "    global limit\n    return {'x': limit}\n"),
    ("seen = []\n", "    def inner():\n        global seen\n        seen = [1]\n"
                    "    inner()\n    return {'x': seen}\n"),
])
def test_global_of_a_top_level_constant_is_accepted(top: str, body: str) -> None:
    assert_accepted(tool(body, top=top))


@pytest.mark.parametrize(("top", "body", "imports"), [
    ("", "    global counter  #!\n    counter = 1\n    return {}\n", ""),
    ("", "    global json  #!\n    json = 1\n    return {}\n", "import json"),
    ("def helper():\n    return 1\n", "    global helper  #!\n    helper = len\n    return {}\n",
     ""),
    ("", "    global NAME  #!\n    NAME = 'other'\n    return {}\n", ""),
    ("", "    global EXAMPLES  #!\n    return {}\n", ""),
    ("counter = 0\nglobal counter  #!\n", "    return {}\n", ""),
    ("", "    x = 1\n    def inner():\n        nonlocal x  #!\n        x = 2\n    return {}\n", ""),
])
def test_global_of_anything_else_is_refused(top: str, body: str, imports: str) -> None:
    assert_refused(tool(body, top=top, imports=imports), "DT105")


def test_a_global_import_name_stays_a_module_everywhere() -> None:
    """`global json` is refused, and it does not make `json` a plain value the module rules
    skip: `x = json` in that function is still DT206."""
    source = tool("    global json\n    x = json  #!\n    return {}\n", imports="import json")
    assert ("DT206", marked(source)) in findings(source)


# -- type(x) in a comparison -----------------------------------------------------------------

@pytest.mark.parametrize("test", [
    "type(params) == dict", "type(params) != list", "type(params) is dict",
    "type(params) is not str", "type(params) in (int, float)",
    "type(params) not in (int, float)", "dict == type(params)", "(bool,) == type(params)",
    "type(params['text']) is ValueError",
])
def test_one_argument_type_in_a_comparison_with_builtin_types_is_accepted(test: str) -> None:
    assert_accepted(tool(f"    return {{'x': {test}}}\n"))


@pytest.mark.parametrize("expression", [
    "type(params)",
    "type(params)(1)",
    "type(params)[0] == int",
    "type(params).mro == int",
    "type(params) == type(1)",
    "type(params) == helper",
    "type(params) == object",
    "type(params) < int",
    "type(params) == int == dict",
    "type(params) in [int, float]",
    "type(params) in ()",
    "type(params, (), {}) == int",
    "type(*[params]) == int",
    "type(x=params) == int",
])
def test_type_anywhere_else_is_refused(expression: str) -> None:
    source = tool(f"    return {{'x': {expression}}}  #!\n",
                  top="def helper():\n    return 1\n")
    assert ("DT401", marked(source)) in findings(source), check_source(source).findings


def test_a_type_comparison_with_a_local_named_type_is_the_tool_own_call() -> None:
    assert_accepted(tool("    type = len\n    return {'x': type(params) == int}\n"))


# -- import urllib ---------------------------------------------------------------------------

@pytest.mark.parametrize(("imports", "body"), [
    ("import urllib", "    return {'x': urllib.parse.quote('a b')}\n"),
    ("", "    import urllib\n    return {'x': urllib.parse.unquote('a%20b')}\n"),
    ("import urllib as web", "    return {'x': web.parse.quote('a b')}\n"),
    ("from urllib import parse", "    return {'x': parse.quote('a b')}\n"),
])
def test_import_urllib_reaches_its_allowed_submodules(imports: str, body: str) -> None:
    assert_accepted(tool(body, imports=imports))


@pytest.mark.parametrize(("body", "code"), [
    ("    return {'x': urllib.request.urlopen('http://x')}  #!\n", "DT201"),
    ("    return {'x': urllib.error}  #!\n", "DT201"),
    ("    web = urllib  #!\n    return {}\n", "DT206"),
    ("    return {'x': repr(urllib.parse)}  #!\n", "DT206"),
])
def test_urllib_reaches_nothing_else(body: str, code: str) -> None:
    assert_refused(tool(body, imports="import urllib"), code)


# -- queue.Queue -----------------------------------------------------------------------------

def test_queue_is_accepted_with_its_methods() -> None:
    assert_accepted(tool(
        "    pending = Queue(maxsize=4)\n    pending.put_nowait(1)\n    pending.put(2)\n"
        "    try:\n        first = pending.get_nowait()\n    except Empty:\n        first = None\n"
        "    return {'x': [first, pending.get(), pending.qsize(), pending.empty(),"
        " pending.full()]}\n", imports="from queue import Empty, Full, Queue"))


@pytest.mark.parametrize(("body", "code"), [
    ("    lock = queue.Queue().mutex  #!\n    return {}\n", "DT303"),
    ("    cond = queue.Queue().not_empty  #!\n    return {}\n", "DT303"),
    ("    cond = queue.Queue().not_full  #!\n    return {}\n", "DT303"),
    ("    cond = queue.Queue().all_tasks_done  #!\n    return {}\n", "DT303"),
    ("    q = queue.LifoQueue()  #!\n    return {}\n", "DT202"),
    ("    q = queue.PriorityQueue()  #!\n    return {}\n", "DT202"),
    ("    q = queue.SimpleQueue()  #!\n    return {}\n", "DT202"),
    ("    t = queue.threading  #!\n    return {}\n", "DT207"),
])
def test_queue_hands_out_no_threading_primitive(body: str, code: str) -> None:
    assert_refused(tool(body, imports="import queue"), code)


# -- whitespace is text ----------------------------------------------------------------------

def test_tab_newline_and_carriage_return_are_text_in_examples_and_code() -> None:
    examples = ('EXAMPLES = [{"params": {"text": "a\\r\\nb\\tc\\rd"}, '
                '"result": {"text": "a\\nb c\\nd", "seen": ["\\r"]}}]\n')
    assert_accepted(tool("    return {'x': params['text'].replace('\\r\\n', '\\n')}\n",
                         top=examples))
    crlf = tool("    return {'x': 1}\n", top=examples).replace("\n", "\r\n")
    assert_accepted(crlf)


@pytest.mark.parametrize(("top", "code"), [
    ('DESCRIPTION = "Does\\r a thing."  #!\n', "DT512"),
    ('EXAMPLES = [{"params": {"text": "a\\x1b[2J"}, "result": {}}]  #!\n', "DT512"),
    ('EXAMPLES = [{"params": {"text": "a\\x08b"}, "result": {}}]  #!\n', "DT512"),
    ('EXAMPLES = [{"params": {"text": "a\\x85b"}, "result": {}}]  #!\n', "DT512"),
    ('EXAMPLES = [{"params": {"text": "a\\u2028b"}, "result": {}}]  #!\n', "DT512"),
    ('EXAMPLES = [{"params": {"text": "a\\u200bb"}, "result": {}}]  #!\n', "DT511"),
    ('EXAMPLES = [{"params": {"text": "a\\u202eb"}, "result": {}}]  #!\n', "DT510"),
])
def test_every_other_control_or_hidden_character_stays_refused(top: str, code: str) -> None:
    source = tool(top=top)
    if top.startswith("DESCRIPTION"):
        source = source.replace('DESCRIPTION = "Does a sample thing."\n', "")
    assert_refused(source, code)


def test_carriage_return_stays_refused_in_name_and_params() -> None:
    params = tool().replace('{"type": "string"}', '{"type": "string", "title": "a\\rb"}')
    assert "DT512" in check_source(params).codes
    name = tool().replace('NAME = "sample_tool"', 'NAME = "sample\\rtool"')
    assert check_source(name).codes & {"DT504", "DT512"}


def test_a_raw_carriage_return_outside_a_crlf_ending_stays_refused() -> None:
    in_code = tool("    x = 1\r    return {}\n")
    assert "DT006" in check_source(in_code).codes
    in_string = tool("    x = 'a\rb'\n    return {}\n")
    assert "DT006" in check_source(in_string).codes


# -- still refused, with the alternative named ------------------------------------------------

def test_namedtuple_replace_names_the_alternative() -> None:
    source = tool("    parts = urlsplit('http://a/b')\n    new = parts._replace(path='/c')  #!\n"
                  "    return {}\n", imports="from urllib.parse import urlsplit")
    hit = next(f for f in check_source(source).findings if f.code == "DT302")
    assert hit.line == marked(source)
    assert "P(x=1, y=p.y)" in hit.message and "dict" in hit.message


def test_attribute_assignment_names_the_alternative() -> None:
    source = tool("    params.total = 1  #!\n    return {}\n")
    hit = next(f for f in check_source(source).findings if f.code == "DT305")
    assert hit.line == marked(source)
    assert "dict" in hit.message


@pytest.mark.parametrize("body", [
    "    int = 5\n    return {'x': type(params) == int}  #!\n",
    "    return {'x': [type(params) in (str, float) for float in [1]]}  #!\n",
])
def test_a_type_comparison_with_a_shadowed_type_name_is_refused(body: str) -> None:
    source = tool(body)
    assert ("DT401", marked(source)) in findings(source), check_source(source).findings


GLOBAL_TABLE = "table = {}\n\n\ndef reader():\n    return table\n"


@pytest.mark.parametrize("statement", ["import json as table", "from json import loads as table"])
def test_an_import_may_not_rebind_a_global_constant(statement: str) -> None:
    """`global table; import json as table` would put a module (or an imported member) where
    every other function reads the constant the gate saw: a module passed around as a value."""
    source = tool(f"    global table\n    {statement}  #!\n    return {{}}\n", top=GLOBAL_TABLE)
    assert_refused(source, "DT105")


def test_an_assignment_may_rebind_a_global_constant() -> None:
    """The accepted neighbour: an assignment rebinds the global (and spends the worker)."""
    assert_accepted(tool("    global table\n    table = {'a': 1}\n    return reader()\n",
                         top=GLOBAL_TABLE))
