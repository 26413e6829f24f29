"""A fast yes/no check of records against results-1.schema.json, compiled from the schema itself.

``jsonschema`` walks the schema anew for every record (a validator object per keyword and
level, ~4 ms per point record here), which made loading a file of 200,000 points take minutes
(issue 30). The schema uses a small part of JSON Schema (draft 2020-12): ``type``, ``const``,
``enum``, ``minimum``, ``maximum``, ``minLength``, ``items``, ``properties``, ``required``,
``allOf``, ``if``/``then``/``else`` and local ``$ref``, plus annotations. :func:`compile_schema`
turns each of them into a Python predicate with the same semantics as ``jsonschema``'s
Draft202012Validator (the JSON types as its type checker defines them: a boolean is not a
number, 1.0 is an integer; ``const``/``enum`` compare as its ``equal`` does; NaN passes a
``minimum`` as it does there), and refuses any other keyword, so a schema that grows beyond
this subset falls back to the full validator instead of being checked loosely. The loader
(load.py) asks the predicate first and calls the full validator only for a record the predicate
refuses, to name the field in its message: a valid file costs the predicate only, an invalid one
gets exactly the message it got before. tests/test_schema.py checks that the predicate and the
full validator agree on every stored driver record and on seeded mutations of them.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

#: keywords that only annotate: they never make a record invalid
_ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "default", "examples"}


class Unsupported(Exception):
    """The schema uses a keyword this compiler does not know: use the full validator."""


#: a compiled schema: value -> valid
_Pred = Callable[[Any], bool]


def _is_number(x: Any) -> bool:
    return (isinstance(x, (int, float))) and not isinstance(x, bool)


_TYPES = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": _is_number,
    "integer": lambda x: (isinstance(x, int) and not isinstance(x, bool))
    or (isinstance(x, float) and x.is_integer()),
}


def _equal(a: Any, b: Any) -> bool:
    """JSON equality as jsonschema's ``equal``: booleans are not numbers, 1 == 1.0."""
    if a is b:
        return True
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    return a == b


def _type_check(t: Any) -> _Pred:
    names = [t] if isinstance(t, str) else list(t)
    for n in names:
        if n not in _TYPES:
            raise Unsupported(f"type {n!r}")
    if names == ["number", "null"] or names == ["null", "number"]:   # the common case, inlined
        return lambda x: x is None or (isinstance(x, (int, float)) and not isinstance(x, bool))
    checks = [_TYPES[n] for n in names]
    if len(checks) == 1:
        return checks[0]
    return lambda x: any(c(x) for c in checks)


def _fast_form(s: Mapping[str, Any]) -> _Pred | None:
    """A quick sufficient test for the schema forms most fields use (exact classes: a bool is
    not an int here either), or None; what it does not accept goes to the exact checks."""
    keys = set(s) - _ANNOTATIONS
    t = s.get("type")
    lo: Any = s.get("minimum")
    if keys == {"type", "minimum"} and t == "integer" and _is_number(lo):
        return lambda x: x.__class__ is int and x >= lo
    if keys == {"type", "minimum"} and t in (["number", "null"], ["null", "number"]) and _is_number(lo):
        return lambda x: x is None or ((x.__class__ is float or x.__class__ is int) and x >= lo)
    if keys == {"type"} and t in (["number", "null"], ["null", "number"]):
        return lambda x: x is None or x.__class__ is float or x.__class__ is int
    if keys == {"type"} and isinstance(t, str) and t in _TYPES and t not in ("number", "integer"):
        cls = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}[t]
        return lambda x: x.__class__ is cls
    return None


def compile_schema(root: Mapping[str, Any]) -> Callable[[Any], bool]:
    """A predicate rec -> bool equivalent to Draft202012Validator(root).is_valid(rec)."""
    defs = root.get("$defs", {})
    cache: dict[str, Any] = {}            # name -> predicate (None while it is being compiled)

    def ref(target: str) -> _Pred:
        if not target.startswith("#/$defs/") or target[len("#/$defs/"):] not in defs:
            raise Unsupported(f"$ref {target!r}")
        name = target[len("#/$defs/"):]
        if name not in cache:
            cache[name] = None                # a recursive reference: resolved lazily below
            cache[name] = comp(defs[name])
        fn = cache[name]
        if fn is None:
            return lambda x: cache[name](x)
        return fn

    def comp(s: Any) -> _Pred:
        if s is True:
            return lambda x: True
        if s is False:
            return lambda x: False
        if not isinstance(s, dict):
            raise Unsupported(f"schema {s!r}")
        found: list[Callable[..., bool]] = []   # predicates; the lambdas bind their operands as defaults
        for k in s:
            if k in _ANNOTATIONS or k in ("$defs", "then", "else"):
                continue
            v = s[k]
            if k == "type":
                found.append(_type_check(v))
            elif k == "const":
                found.append(lambda x, v=v: _equal(x, v))
            elif k == "enum":
                found.append(lambda x, v=tuple(v): any(_equal(x, e) for e in v))
            elif k == "minimum":
                found.append(lambda x, v=v: not _is_number(x) or not x < v)
            elif k == "maximum":
                found.append(lambda x, v=v: not _is_number(x) or not x > v)
            elif k == "minLength":
                found.append(lambda x, v=v: not isinstance(x, str) or len(x) >= v)
            elif k == "items":
                if "prefixItems" in s:
                    raise Unsupported("prefixItems")
                item = comp(v)
                found.append(lambda x, item=item: not isinstance(x, list) or all(item(e) for e in x))
            elif k == "properties":
                props = {name: comp(sub) for name, sub in v.items()}

                def properties(x: Any, props: dict[str, _Pred] = props,
                               get: Callable[[str], _Pred | None] = props.get) -> bool:
                    if not isinstance(x, dict):
                        return True
                    if len(x) <= len(props):      # walk the shorter of the two
                        for name, val in x.items():
                            fn = get(name)
                            if fn is not None and not fn(val):
                                return False
                        return True
                    for name, fn in props.items():
                        if name in x and not fn(x[name]):
                            return False
                    return True
                found.append(properties)
            elif k == "required":
                req = tuple(v)
                found.append(lambda x, req=req: not isinstance(x, dict) or all(r in x for r in req))
            elif k == "allOf":
                subs = tuple(comp(sub) for sub in v)
                found.append(lambda x, subs=subs: all(f(x) for f in subs))
            elif k == "if":
                cond = comp(v)
                then = comp(s["then"]) if "then" in s else (lambda x: True)
                other = comp(s["else"]) if "else" in s else (lambda x: True)
                found.append(lambda x, c=cond, t=then, o=other: t(x) if c(x) else o(x))
            elif k == "$ref":
                found.append(ref(v))
            else:
                raise Unsupported(f"keyword {k!r}")
        checks = tuple(found)
        fast = _fast_form(s)
        if fast is not None:                  # a sufficient test first, the exact one after
            exact = checks[0] if len(checks) == 1 else (lambda x, cs=checks: all(c(x) for c in cs))
            return lambda x: fast(x) or exact(x)
        if not checks:
            return lambda x: True
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(c(x) for c in checks)

    top = comp(root)
    targets = _type_dispatch(root)
    if targets is None or any(t[len("#/$defs/"):] not in defs for t in targets.values()):
        return top
    rest = {k: v for k, v in root.items() if k not in ("allOf", "$defs")}
    base = comp(rest)
    branches = {t: ref(target) for t, target in targets.items()}

    def general(x: Any) -> bool:
        if not base(x):
            return False
        if isinstance(x, dict) and isinstance(x.get("type"), str):
            fn = branches.get(x["type"])
            if fn is not None:
                return fn(x)
        return True
    schemas = {t: [rest, defs[target[len("#/$defs/"):]]] for t, target in targets.items()}
    return _ShapeChecker(general, rest, schemas, comp)


def _flat(s: Any) -> bool:
    """A schema of a plain record: only type object, required and properties (and annotations)."""
    return (isinstance(s, dict) and set(s) - _ANNOTATIONS <= {"type", "required", "properties"}
            and s.get("type", "object") == "object" and isinstance(s.get("properties", {}), dict))


def _type_only(sub: Any) -> _Pred | None:
    """The field's verdict depends on the class of its value only: a schema of a ``type`` alone,
    unless it admits integers but not numbers (a float is an integer or not by its value)."""
    if not isinstance(sub, dict) or set(sub) - _ANNOTATIONS != {"type"}:
        return None
    t = sub["type"]
    names = [t] if isinstance(t, str) else t
    return None if "integer" in names and "number" not in names else _type_check(t)


class _ShapeChecker:
    """The compiled predicate, planned once per record shape (its type, field names and the
    JSON classes of their values): fields whose schema is a type alone are decided by the shape,
    so a record of a known shape runs only the checks that depend on values (minimum, const,
    minLength, nested items ...). Shapes of other kinds, and records that are not objects with a
    string type, go to the general predicate. At most ``LIMIT`` shapes are remembered."""

    LIMIT = 10000

    def __init__(self, general: _Pred, rest: dict[str, Any], schemas: dict[str, list[Any]],
                 comp: Callable[[Any], _Pred]) -> None:
        self.general, self.rest, self.schemas, self.comp = general, rest, schemas, comp
        self.plans: dict[tuple[Any, ...], tuple[tuple[str, _Pred], ...]] = {}
        self.compiled: dict[int, _Pred] = {}

    def _fn(self, sub: Any) -> _Pred:
        fn = self.compiled.get(id(sub))
        if fn is None:
            fn = self.compiled[id(sub)] = self.comp(sub)
        return fn

    def _plan(self, x: dict[str, Any], rtype: str) -> tuple[tuple[str, _Pred], ...] | None:
        """[(field, predicate)] still to run on records of x's shape; None: use the general
        predicate (not a flat record schema, or the shape itself is invalid)."""
        schemas = self.schemas.get(rtype, [self.rest])
        if not all(_flat(s) for s in schemas):
            return None
        plan: list[tuple[str, _Pred]] = []
        for s in schemas:
            if not all(r in x for r in s.get("required", ())):
                return None
        for name, val in x.items():
            for s in schemas:
                sub = s.get("properties", {}).get(name)
                if sub is None:
                    continue
                by_class = _type_only(sub)
                if by_class is None:
                    plan.append((name, self._fn(sub)))
                elif not by_class(val):
                    return None
        return tuple(plan)

    def __call__(self, x: Any) -> bool:
        if x.__class__ is not dict:
            return self.general(x)
        t = x.get("type")
        if t.__class__ is not str:
            return self.general(x)
        key = (t, tuple(x), tuple(map(type, x.values())))
        plan = self.plans.get(key)
        if plan is None:
            plan = self._plan(x, t)
            if plan is None:
                return self.general(x)
            if len(self.plans) < self.LIMIT:
                self.plans[key] = plan
        for name, fn in plan:
            if not fn(x[name]):
                return False
        return True


def _type_dispatch(root: Mapping[str, Any]) -> dict[str, str] | None:
    """{type name: $ref} when the root's allOf is only `if type const T then $ref`; else None."""
    out: dict[str, str] = {}
    for sub in root.get("allOf", []):
        cond = sub.get("if")
        if set(sub) != {"if", "then"} or not isinstance(cond, dict):
            return None
        if set(cond) - {"properties", "required"} or set(cond.get("properties", {})) != {"type"}:
            return None
        tc = cond["properties"]["type"]
        if set(tc) != {"const"} or not isinstance(tc["const"], str) or cond.get("required") != ["type"]:
            return None
        then = sub["then"]
        if set(then) != {"$ref"} or not isinstance(then["$ref"], str) \
                or not then["$ref"].startswith("#/$defs/"):
            return None
        if tc["const"] in out:
            return None
        out[tc["const"]] = then["$ref"]
    return out or None
