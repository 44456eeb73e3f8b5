"""Runs INSIDE a probed program: writes the operands of each numeric comparison that fails.

Standalone (no autodd import, Python 3.9 syntax): `engine/rules/operand_probe.py` embeds this
file's source in one statement of the probed program, `exec`d in a namespace of its
own, so the program's globals do not change. It wraps, where they are or once they
are imported, `torch.testing.assert_close`, `torch.allclose`, `torch.equal`,
`numpy.testing.assert_allclose` / `assert_array_equal` / `assert_array_almost_equal`,
`numpy.allclose`, `numpy.array_equal` and `math.isclose`. A wrapper calls the real
function with the same arguments and returns or raises what it did; only when the
comparison fails (raises AssertionError, or returns False) it writes one marker line
to stderr: `<autodd-operands:{json}>`, a digest of both operands (type, dtype, shape,
NaN/inf masks, moments, a sample) and of their difference. The digest is computed
on copies (float64 numpy arrays), never on the program's objects in place.
"""

import hashlib
import json
import math
import os
import sys

_SAMPLES = 32
_ASSERTS = {
    "torch.testing": ("assert_close",),
    "numpy.testing": ("assert_allclose", "assert_array_equal", "assert_array_almost_equal"),
}
_PREDICATES = {"torch": ("allclose", "equal"), "numpy": ("allclose", "array_equal"), "math": ("isclose",)}
_busy = []  # type: list  # a wrapper running: comparisons made inside one are its own, not the program's


def _as_array(value):
    """(type name, dtype, float64 numpy array or None) for an operand."""
    kind = type(value).__module__.split(".")[0] + "." + type(value).__name__
    numpy = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    dtype = str(getattr(value, "dtype", type(value).__name__))
    if numpy is None:
        return kind, dtype, None
    try:
        if torch is not None and isinstance(value, torch.Tensor):
            tensor = value.detach().cpu()
            if tensor.is_complex():
                tensor = torch.view_as_real(tensor)
            return kind, dtype, tensor.to(torch.float64).numpy().copy()
        array = numpy.asarray(value)
        if array.dtype.kind == "c":
            array = numpy.stack([array.real, array.imag], axis=-1)
        return kind, dtype, numpy.array(array, dtype=numpy.float64)
    except Exception:  # noqa: BLE001 - an operand we cannot read: its type alone
        return kind, dtype, None


def _mask_hash(mask):
    return hashlib.blake2b(mask.tobytes(), digest_size=8).hexdigest() if mask.any() else ""


def _digest(value):
    kind, dtype, array = _as_array(value)
    out = {"type": kind, "dtype": dtype}
    if array is None:
        return out
    numpy = sys.modules["numpy"]
    flat = array.reshape(-1)
    finite = numpy.isfinite(flat)
    values = numpy.where(finite, flat, 0.0)
    picks = numpy.linspace(0, flat.size - 1, num=min(_SAMPLES, flat.size)).astype(numpy.int64) if flat.size else []
    out.update(
        shape=list(array.shape),
        nan=int(numpy.isnan(flat).sum()),
        nan_mask=_mask_hash(numpy.isnan(flat)),
        inf_mask=_mask_hash(numpy.isinf(flat)) + _mask_hash(flat == numpy.inf),
        abs_sum=float(numpy.abs(values).sum()),
        sq_sum=float((values * values).sum()),
        sample=[_number(flat[i]) for i in picks],
    )
    return out


def _number(x):
    x = float(x)
    return x if math.isfinite(x) else repr(x)


# Each function's own default tolerance (rtol, atol); assert_close's depends on the dtype.
_DEFAULT_TOLERANCE = {"assert_allclose": (1e-7, 0.0), "assert_array_equal": (0.0, 0.0), "equal": (0.0, 0.0),
                      "array_equal": (0.0, 0.0), "assert_array_almost_equal": (0.0, 1.5e-6), "isclose": (1e-9, 0.0)}
_CLOSE_BY_DTYPE = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                   "float64": (1e-7, 1e-7)}


def _tolerance(name, actual, kwargs):
    short = name.rsplit(".", 1)[-1]
    rtol, atol = _DEFAULT_TOLERANCE.get(short, (1e-5, 1e-8))
    if short == "assert_close":
        rtol, atol = _CLOSE_BY_DTYPE.get(str(getattr(actual, "dtype", "")).replace("torch.", ""), (0.0, 0.0))
    if short == "assert_array_almost_equal":
        atol = 1.5 * 10.0 ** -int(kwargs.get("decimal", 6))
    if short == "isclose":
        rtol, atol = kwargs.get("rel_tol", rtol), kwargs.get("abs_tol", atol)
    rtol, atol = kwargs.get("rtol", rtol), kwargs.get("atol", atol)
    return float(rtol if rtol is not None else 0.0), float(atol if atol is not None else 0.0)


def _difference(actual, expected, tolerance):
    """Elements differing beyond the comparison's tolerance (given, else its own default), the greatest
    absolute and relative difference and where."""
    numpy = sys.modules.get("numpy")
    _, _, a = _as_array(actual)
    _, _, b = _as_array(expected)
    if numpy is None or a is None or b is None:
        return {}
    try:
        a, b = numpy.broadcast_arrays(a, b)
    except ValueError:
        return {"broadcast": False}
    both_nan = numpy.isnan(a) & numpy.isnan(b)
    with numpy.errstate(all="ignore"):
        diff = numpy.where(both_nan, 0.0, numpy.abs(a - b))
        diff = numpy.where(numpy.isnan(diff), numpy.inf, diff)
        rel = numpy.where(diff == 0, 0.0, diff / numpy.abs(b))
    rel = numpy.where(numpy.isnan(rel), numpy.inf, rel)
    rtol, atol = tolerance
    beyond = (diff > atol + rtol * numpy.abs(b)) | (numpy.isnan(a) != numpy.isnan(b))
    out = {"size": int(a.size), "differ": int(beyond.sum())}
    if a.size:
        where = int(numpy.argmax(diff))
        out.update(max_abs=_number(diff.reshape(-1)[where]), max_abs_at=_index(where, a.shape),
                   max_rel=_number(rel.reshape(-1).max()),
                   max_rel_at=_index(int(numpy.argmax(rel)), a.shape))
    return out


def _index(flat, shape):
    numpy = sys.modules["numpy"]
    return [int(i) for i in numpy.unravel_index(flat, shape)] if shape else []


def _program_line():
    """The line of the program (`__main__`'s file) that made the comparison."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    frame = sys._getframe(2)  # type: object
    first = frame.f_lineno  # type: ignore[attr-defined]
    while frame is not None:
        if frame.f_code.co_filename == main:  # type: ignore[attr-defined]
            return frame.f_lineno  # type: ignore[attr-defined]
        frame = frame.f_back  # type: ignore[attr-defined]
    return first


def _write(name, args, kwargs, line):
    operands = list(args[:2])
    for key in ("actual", "expected", "a", "b", "desired", "x", "y", "input", "other", "a1", "a2"):
        if key in kwargs and len(operands) < 2:
            operands.append(kwargs[key])
    record = {"function": name, "line": line, "operands": [_digest(x) for x in operands]}
    if len(operands) == 2:
        record["difference"] = _difference(operands[0], operands[1], _tolerance(name, operands[0], kwargs))
    os.write(2, ("\n<autodd-operands:" + json.dumps(record, separators=(",", ":")) + ">\n").encode())


def _wrap(module, name, raises):
    real = getattr(module, name, None)
    if real is None or getattr(real, "_autodd_real", None) is not None:
        return
    qualified = module.__name__ + "." + name

    def wrapper(*args, **kwargs):
        if _busy:
            return real(*args, **kwargs)
        _busy.append(1)
        try:
            try:
                result = real(*args, **kwargs)
            except AssertionError:
                if raises:
                    _record(qualified, args, kwargs)
                raise
            if not raises and not result:
                _record(qualified, args, kwargs)
            return result
        finally:
            _busy.pop()

    wrapper._autodd_real = real  # type: ignore[attr-defined]
    wrapper.__name__ = getattr(real, "__name__", name)
    wrapper.__doc__ = getattr(real, "__doc__", None)
    setattr(module, name, wrapper)


def _record(name, args, kwargs):
    try:
        _write(name, args, kwargs, _program_line())
    except Exception as exc:  # noqa: BLE001 - never change what the program does
        os.write(2, ("\n<autodd-operands:" + json.dumps({"function": name, "error": repr(exc)}) + ">\n").encode())


def _patch(name):
    module = sys.modules.get(name)
    if module is None:
        return
    for function in _ASSERTS.get(name, ()):
        _wrap(module, function, True)
    for function in _PREDICATES.get(name, ()):
        _wrap(module, function, False)
    if name == "torch" and "torch.testing" in sys.modules:
        _patch("torch.testing")
    if name == "numpy" and "numpy.testing" in sys.modules:
        _patch("numpy.testing")


class _Finder:
    """Patches a watched module once its own import has run."""

    _autodd_probe = True  # the probe statement runs this hook once (it may sit in a loop)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in _ASSERTS and fullname not in _PREDICATES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                real_exec = spec.loader.exec_module

                def exec_module(module, real_exec=real_exec):
                    real_exec(module)
                    _patch(fullname)

                try:  # on this module's loader alone (a loader per file): its __loader__ stays the same
                    spec.loader.exec_module = exec_module  # type: ignore[method-assign]
                except (AttributeError, TypeError):
                    pass
                return spec
            if spec is not None:
                return spec
        return None


for _name in list(_ASSERTS) + list(_PREDICATES):
    _patch(_name)
sys.meta_path.insert(0, _Finder())
