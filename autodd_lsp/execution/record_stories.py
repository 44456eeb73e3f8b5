"""The calls each instance was given from outside its own methods: its story (for `record_main.py`).

Standalone like the recorder (no autodd import, Python 3.10+): the recorder loads it from its
own folder by path, under a private name that no user module can take.

A method's call goes into its instance's (`self`'s) story when it comes from outside the
instance's own methods: from module level, from a function, from another object's method (the
caller's `self` is not the same instance). `__init__` begins a new story (the same
address, a new instance). Each call is kept as its method's name and its arguments by
parameter, as Python text (`_text`; None where one cannot be written), each marked where it is
its parameter's default. `passes/replay.py` writes a story out as calls of the methods as they
are then (a parameter the reduction removed is left out).

Bounded: at most STORY_CALLS calls a story (beyond, the story is not complete), and TOTAL_CALLS
method calls looked at in all, from outside or not (then none is whole, and a hot loop's method
costs a comparison: looking at the caller's frame costs its locals).
"""

import ast
import builtins
import sys
import types

STORY_CALLS = 64
TOTAL_CALLS = 20000
_NAMED = (type, types.FunctionType, types.BuiltinFunctionType)


class Signature:
    """What a method's call is written with: its name, its parameters after `self` (name and
    the default's text, None without one), its keyword-only ones, and its `*`/`**` names."""

    def __init__(self, name, positional, keyword_only, vararg, kwarg):
        self.name, self.positional, self.keyword_only = name, positional, keyword_only
        self.vararg, self.kwarg = vararg, kwarg


def signature_of(node):
    """A `Signature` of a method's def (before it is instrumented)."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + [ast.unparse(d) for d in arguments.defaults]
    keyword_defaults = [None if d is None else ast.unparse(d) for d in arguments.kw_defaults]
    return Signature(
        node.name,
        [(p.arg, default) for p, default in zip(positional, defaults, strict=True)][1:],
        [(p.arg, default) for p, default in zip(arguments.kwonlyargs, keyword_defaults, strict=True)],
        arguments.vararg is not None, arguments.kwarg is not None,
    )


class Stories:
    def __init__(self, signatures, data_repr, tensor_repr):
        self.signatures = signatures  # a method's "t" key -> its Signature
        self._data_repr, self._tensor_repr = data_repr, tensor_repr
        self.globals = {}  # the program's module namespace (set by the recorder)
        self.stories = {}  # id(instance) -> its story's index
        self.told = []  # [class name, whether __init__ began it, complete, [call (`_call`), ...]] by index
        self.instances = []  # each story's instance's id, by index
        self.classes = []  # and its class (an id the instance left may be another's later)
        self.ended = []  # the stories of the instances whose methods were running when the program ended
        self.left = TOTAL_CALLS

    def see(self, key, values, varargs, kwargs):
        """A method (its "t" key) called with `values` (self first) and its `*`/`**` parameters."""
        if self.left <= 0:
            return
        self.left -= 1
        if self.left == 0:
            for told in self.told:
                told[2] = False  # calls from here on are not told: no story is whole
            return
        instance = values[0]
        signature = self.signatures.get(key)
        story = self._story_of(instance)
        if signature is None:
            return
        begins = signature.name == "__init__"
        if self._inside(instance):
            return
        if story is None or begins:
            story = self.stories[id(instance)] = len(self.told)
            cls = type(instance)
            named = self.globals.get(cls.__name__) is cls
            self.told.append([cls.__name__ if named else None, begins, named, []])
            self.instances.append(id(instance))
            self.classes.append(cls)
        told = self.told[story]
        if len(told[3]) >= STORY_CALLS:
            told[2] = False
            return
        told[3].append(self._call(signature, values[1:], varargs, kwargs))

    def _story_of(self, instance):
        """The index of `instance`'s story; None where its id has none, or one of another class's
        instance that is gone (ids are reused)."""
        story = self.stories.get(id(instance))
        return story if story is not None and self.classes[story] is type(instance) else None

    def _inside(self, instance):
        """Whether the caller (the method's caller) is a method of the same instance, or a function
        defined in one (its `self` a free variable: argparse's `consume_optional`)."""
        try:
            caller = sys._getframe(4)  # _inside <- see <- the recorder's hook <- the method <- its caller
            code = caller.f_code
            return "self" in code.co_varnames + code.co_freevars and caller.f_locals.get("self") is instance
        except Exception:  # noqa: BLE001 - a frame without locals: count the call as from outside
            return False

    def _call(self, signature, values, varargs, kwargs):
        """[method name, [[parameter, text, whether it is the default's text], ...] (after `self`,
        the keyword-only ones last), [`*args` texts], [[`**kwargs` key, text], ...], how many of the
        parameters are positional]; a text is None where the value cannot be written."""
        count = len(signature.positional)
        named = []
        for (name, default), value in zip([*signature.positional, *signature.keyword_only], values, strict=False):
            text = self._text(value)
            named.append([name, text, text is not None and text == default])
        star = [self._text(value) for value in varargs] if signature.vararg and varargs else []
        double = [[str(k), self._text(v)] for k, v in kwargs.items()] if signature.kwarg and kwargs else []
        return [signature.name, named, star, double, count]

    def _built_by(self, call):
        """The arguments of a story's one `__init__` call as text (`250`, `cents, unit="EUR"`: by
        position up to the first default left out, then by keyword); None where one cannot be written."""
        _, named, star, double, count = call
        if star or any(text is None for _, text, _ in named) or any(text is None for _, text in double):
            return None
        texts, by_keyword = [], False
        for index, (name, text, default) in enumerate(named):
            by_keyword = by_keyword or default or index >= count
            if not default:
                texts.append(f"{name}={text}" if by_keyword else text)
        return ", ".join([*texts, *(f"{key}={text}" for key, text in double)])

    def _text(self, value):
        """`value` as Python text, None where it cannot be written: plain data, a tensor, a name,
        or an instance of the program's built by one call and given nothing since (`Money(250)`)."""
        try:
            text = self._data_repr(value)
            if text is None:
                text = self._tensor_repr(value)
            if text is None and isinstance(value, _NAMED):
                name = getattr(value, "__name__", "")
                if getattr(builtins, name, None) is value or self.globals.get(name) is value:
                    text = name
            story = self._story_of(value) if text is None else None
            if story is not None:
                class_name, begun, complete, calls = self.told[story]
                arguments = self._built_by(calls[0]) if begun and complete and len(calls) == 1 else None
                if arguments is not None:
                    text = f"{class_name}({arguments})"
            return text
        except Exception:  # noqa: BLE001 - the user's containers can raise anything
            return None

    def end(self, trace, filename):
        """The program ends with an exception (SystemExit too) raised through `trace`: keep the
        stories of the instances whose methods (the program's, in `filename`) it went through,
        innermost first."""
        ended: list[int] = []
        while trace is not None:
            frame = trace.tb_frame
            if frame.f_code.co_filename == filename:
                story = self._story_of(frame.f_locals.get("self", self))
                if story is not None and story not in ended:
                    ended.insert(0, story)
            trace = trace.tb_next
        self.ended = ended

    def rows(self):
        """The records' rows: one "h" row a story that ended the program (its index, its
        place innermost first, and its instance's name where a module-level name held it at exit)."""
        holders: dict[int, str] = {}
        for name, value in list(self.globals.items()):
            if not name.startswith("__"):
                holders.setdefault(id(value), name)
        return [["h", index, 0, 0, 0, "story", [*self.told[index], holders.get(self.instances[index])], False, None]
                for index in self.ended]
