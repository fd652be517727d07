"""ai00: RWKV-7 chat on the CPU, a thin Pythonic layer over libai00's C ABI (include/ai00/ai00.h).

Handles are context managers (``with Model(path) as m: ...``) and are also freed when collected;
every failing call raises an :class:`Ai00Error` subclass carrying the library's status and
message. A :class:`Generator` is an iterator of :class:`Delta` values. A :class:`Batch` steps many
generators of one model together; a :class:`PrefixCache` reuses States after shared prompt
prefixes; :func:`score_options` ranks candidate continuations; a :class:`StateBundle` saves many
named States at once.
"""
from __future__ import annotations

import ctypes
import enum
import json as _json
import os
import threading
import weakref
from ctypes import POINTER, byref, c_char_p, c_float, c_int32, c_size_t, c_uint32, c_void_p
from dataclasses import dataclass, field
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence,
                    Union)

from . import _ffi
from ._ffi import NUL_TERMINATED, lib

__all__ = [
    "Ai00Error", "InvalidArgumentError", "Ai00IOError", "ModelFileError", "FormatError",
    "GrammarError", "MismatchError", "UnsupportedError", "CancelledError", "BufferTooSmallError",
    "OutOfMemoryError", "InternalError", "Status", "Thinking", "DeltaKind", "FinishReason",
    "GrammarMode", "ToolChoice", "Activations", "SamplerMethod", "Preset", "ThinkingStart", "CheckVerdict", "Delta",
    "ModelInfo", "CheckResult", "SamplerParams", "SchemaOptions", "Model", "State",
    "ChatTemplate", "Rendered", "OutputParser", "Grammar", "Tokenizer", "Generator",
    "version", "abi_version", "status_string", "last_error", "finish_reason_name", "FORMATS",
    "WeightType", "FileFormat", "Limits", "convert_model", "capabilities",
    "PrefixCache", "PrefixCacheStats", "Score", "score_options", "score_texts", "StateBundle",
    "Batch", "BatchEvent", "BatchEventKind", "BatchStepResult",
]

FORMATS = ("ai00-v1", "ai00-v0", "goose", "openchatml")


# ---- enums ------------------------------------------------------------------------------------

class Status(enum.IntEnum):
    OK = 0
    INVALID_ARGUMENT = -1
    IO = -2
    MODEL_FILE = -3
    FORMAT = -4
    GRAMMAR = -5
    MISMATCH = -6
    UNSUPPORTED = -7
    CANCELLED = -8
    BUFFER_TOO_SMALL = -9
    OUT_OF_MEMORY = -10
    INTERNAL = -99


class Thinking(enum.IntEnum):
    OFF = 0
    ON = 1
    A_BIT = 2
    A_LOT = 3


class DeltaKind(enum.IntEnum):
    TEXT = 0
    REASONING = 1
    TOOL_CALL = 2
    FINISH = 3
    TOOL_CALL_START = 4      # with stream_tool_calls: call, id and name, as soon as known
    TOOL_CALL_ARGUMENTS = 5  # with stream_tool_calls: the next piece of the arguments JSON


class WeightType(enum.IntEnum):
    """Weight type of a converted file (:func:`convert_model`)."""
    F32 = 0
    F16 = 1
    BF16 = 2
    Q8_0 = 3
    Q4_0 = 4
    Q4_1 = 5
    Q5_0 = 6
    Q5_1 = 7


class FileFormat(enum.IntEnum):
    """Container of a converted file."""
    GGUF = 0
    SAFETENSORS = 1  # F32, F16 and BF16 only


class FinishReason(enum.IntEnum):
    NONE = -1
    STOP = 0
    LENGTH = 1
    TOOL_CALLS = 2
    CANCELLED = 3
    GRAMMAR_DONE = 4
    ERROR = 5


class GrammarMode(enum.IntEnum):
    AUTOMATIC = 0
    NONE = 1
    STRUCTURAL = 2
    SCHEMA_AWARE = 3


class ToolChoice(enum.IntEnum):
    """Which tool calls a chat turn's tool grammar allows (``ai00_tool_choice``). Pass a tool's
    name (a ``str``) as ``tool_choice=`` for NAMED: every call is to that tool."""
    AUTO = 0      # text, or text then calls
    NONE = 1      # the tools are listed in the prompt, no call may be made
    REQUIRED = 2  # the reply is the call block: at least one call
    NAMED = 3     # as REQUIRED, every call to the named tool (pass the name as tool_choice)


class Activations(enum.IntEnum):
    """ai00_activations: DOT (default) multiplies quantized / BF16 weights with int8 / bf16
    activations (logits within about 0.05 of EXACT); EXACT keeps fp32 activations (the reference
    computation's logits, slower)."""
    DOT = 0
    EXACT = 1


class SamplerMethod(enum.IntEnum):
    NUCLEUS = 0
    TYPICAL = 1
    MIROSTAT_V2 = 2
    GREEDY = 3


class Preset(enum.IntEnum):
    CHAT = 0
    MATH = 1
    CREATIVE = 2
    AI00_SERVER = 3


class ThinkingStart(enum.IntEnum):
    OPTIONAL = 0
    FORCED = 1
    FORCED_PARTIAL = 2


class CheckVerdict(enum.IntEnum):
    ACCEPTED = 0
    BYTES = 1
    TOKEN = 2
    END_TOKEN = 3


# ---- errors -----------------------------------------------------------------------------------

class Ai00Error(Exception):
    """A failed ai00 call: ``status`` (a :class:`Status`) and the library's ``message``."""

    def __init__(self, status: int, message: str):
        try:
            self.status: Union[Status, int] = Status(status)
        except ValueError:
            self.status = status
        self.message = message
        super().__init__(f"{status_string(status)}: {message}" if message else status_string(status))


class InvalidArgumentError(Ai00Error, ValueError):
    pass


class Ai00IOError(Ai00Error, OSError):
    pass


class ModelFileError(Ai00Error):
    pass


class FormatError(Ai00Error, ValueError):
    pass


class GrammarError(Ai00Error, ValueError):
    pass


class MismatchError(Ai00Error, ValueError):
    pass


class UnsupportedError(Ai00Error):
    pass


class CancelledError(Ai00Error):
    pass


class BufferTooSmallError(Ai00Error):
    pass


class OutOfMemoryError(Ai00Error, MemoryError):
    pass


class InternalError(Ai00Error):
    pass


_ERRORS = {
    -1: InvalidArgumentError, -2: Ai00IOError, -3: ModelFileError, -4: FormatError,
    -5: GrammarError, -6: MismatchError, -7: UnsupportedError, -8: CancelledError,
    -9: BufferTooSmallError, -10: OutOfMemoryError, -99: InternalError,
}


def _raise(status: int) -> None:
    # The calling thread's message slot: ctypes calls run on this thread.
    message = lib.ai00_last_error().decode("utf-8", "replace")
    raise _ERRORS.get(status, Ai00Error)(status, message)


def _check(status: int) -> None:
    if status != 0:
        _raise(status)


def _text(value: Union[str, bytes]) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _json_text(value: Any) -> bytes:
    """A JSON argument: str/bytes pass through, anything else is serialized."""
    if isinstance(value, (str, bytes, bytearray)):
        return _text(value)
    return _json.dumps(value).encode("utf-8")


def _string(ptr: Optional[int], length: int) -> str:
    return ctypes.string_at(ptr, length).decode("utf-8", "replace") if ptr and length else ""


def _two_call(call: Callable[[c_size_t, Any, int], int], ctype) -> Any:
    """The size-query idiom: call(out_len, NULL, 0), then into a buffer of that size."""
    n = c_size_t(0)
    status = call(byref(n), None, 0)
    if status not in (0, Status.BUFFER_TOO_SMALL):
        _raise(status)
    buf = (ctype * max(n.value, 1))()
    _check(call(byref(n), buf, n.value))
    return buf, n.value


# ---- version ----------------------------------------------------------------------------------

def version() -> str:
    """The library's version as "major.minor.patch"."""
    v = c_uint32()
    _check(lib.ai00_version_number(byref(v)))
    return f"{v.value // 10000}.{v.value // 100 % 100}.{v.value % 100}"


def capabilities() -> Dict[str, Any]:
    """What this build can do on this CPU (ai00_capabilities_json), parsed: the ISA a load would
    choose, the ISAs compiled in and runnable here, native int8/bf16 dot products, hardware
    threads, weight types, containers, chat formats and grammar inputs."""
    buf, n = _two_call(lambda o, b, c: lib.ai00_capabilities_json(o, b, c), ctypes.c_char)
    return _json.loads(buf.raw[:n].decode("utf-8"))


def abi_version() -> int:
    v = c_uint32()
    _check(lib.ai00_abi_version(byref(v)))
    return v.value


def status_string(status: int) -> str:
    return lib.ai00_status_string(int(status)).decode("utf-8")


def last_error() -> str:
    """The message of this thread's last failed ai00 call ("" if none)."""
    return lib.ai00_last_error().decode("utf-8", "replace")


def finish_reason_name(reason: int) -> str:
    name = c_char_p()
    _check(lib.ai00_finish_reason_name(byref(name), int(reason)))
    return name.value.decode("utf-8")


# ---- limits -----------------------------------------------------------------------------------

@dataclass
class Limits:
    """The process-wide resource limits of every parser, compiler and loader (ai00_limits)."""
    max_nesting_depth: int
    max_threads: int
    max_grammar_states: int
    max_nfa_states: int
    max_input_bytes: int
    max_file_bytes: int
    max_string_bytes: int
    max_tokens: int

    _NAMES = ("max_nesting_depth", "max_threads", "max_grammar_states", "max_nfa_states",
              "max_input_bytes", "max_file_bytes", "max_string_bytes", "max_tokens")

    @classmethod
    def _from_c(cls, c: _ffi.LimitsC) -> "Limits":
        return cls(*[getattr(c, n) for n in cls._NAMES])

    @classmethod
    def default(cls) -> "Limits":
        """The documented defaults (not necessarily the limits in force)."""
        c = _ffi.LimitsC()
        _check(lib.ai00_limits_default(byref(c)))
        return cls._from_c(c)

    @classmethod
    def current(cls) -> "Limits":
        """The limits in force."""
        c = _ffi.LimitsC()
        c.struct_size = ctypes.sizeof(c)
        _check(lib.ai00_limits_get(byref(c)))
        return cls._from_c(c)

    def apply(self) -> None:
        """Makes these the process-wide limits; a zero field (or max_nesting_depth above 1000)
        raises InvalidArgumentError and changes nothing."""
        c = _ffi.LimitsC()
        _check(lib.ai00_limits_default(byref(c)))
        for n in self._NAMES:
            setattr(c, n, int(getattr(self, n)))
        _check(lib.ai00_limits_set(byref(c)))


# ---- converting weight files ------------------------------------------------------------------

def convert_model(path_in: Union[str, os.PathLike], path_out: Union[str, os.PathLike], *,
                  weight_type: int = WeightType.F16, file_format: int = FileFormat.GGUF,
                  overwrite: bool = False, vocab_path: Optional[Union[str, os.PathLike]] = None,
                  progress: Optional[Callable[[int, int], Optional[bool]]] = None) -> None:
    """Rewrites a weight file as GGUF or safetensors in one weight type. `progress(done, total)`
    is called on this thread; returning True cancels (CancelledError, nothing written). An
    exception raised by `progress` cancels the conversion and is re-raised."""
    p = _ffi.ConvertParamsC()
    _check(lib.ai00_convert_params_default(byref(p)))
    p.weight_type, p.file_format = int(weight_type), int(file_format)
    p.overwrite = 1 if overwrite else 0
    p.vocab_path = _text(os.fspath(vocab_path)) if vocab_path else None
    cb, error = _progress_callback(progress)
    p.progress = cb
    a, b = _text(os.fspath(path_in)), _text(os.fspath(path_out))
    status = lib.ai00_model_convert(a, len(a), b, len(b), byref(p))
    if error:
        raise error[0]
    _check(status)


def _progress_callback(progress: Optional[Callable[[int, int], Optional[bool]]]):
    """An ai00_progress_callback for `progress` (or a NULL one), and the list where an exception
    it raised is kept: it must not unwind through the library, so it cancels the call and the
    caller re-raises it afterwards. Keep the callback referenced until the call returns."""
    error: List[BaseException] = []

    def trampoline(done, total, _user):
        try:
            return 1 if progress(done, total) else 0
        except BaseException as e:  # never unwind through the library
            error.append(e)
            return 1

    return (_ffi.ProgressCallback(trampoline) if progress else _ffi.ProgressCallback()), error


# ---- handles ----------------------------------------------------------------------------------

class _Handle:
    """Owns one library handle; ``close()`` (or leaving ``with``, or collection) frees it once."""
    _free: Callable[[int], int]
    _last_error_fn: Callable[[int], bytes]
    _kind = "handle"

    def __init__(self, handle: int):
        self._h: Optional[int] = handle

    @property
    def _handle(self) -> int:
        if not self._h:
            raise InvalidArgumentError(Status.INVALID_ARGUMENT, f"this {self._kind} is closed")
        return self._h

    def close(self) -> None:
        h, self._h = self._h, None
        if h:
            type(self)._free(h)

    @property
    def closed(self) -> bool:
        return not self._h

    @property
    def last_error(self) -> str:
        """The message of the last failed call on this handle ("" if none)."""
        return type(self)._last_error_fn(self._h).decode("utf-8", "replace")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


@dataclass(frozen=True)
class ModelInfo:
    n_layer: int
    n_embd: int
    n_head: int
    head_size: int
    n_vocab: int
    n_tokens: int
    n_threads: int
    state_bytes: int


class Model(_Handle):
    """Weights, tokenizer and kernels of one RWKV-7 model; immutable, shareable by threads."""
    _free = staticmethod(lib.ai00_model_free)
    _last_error_fn = staticmethod(lib.ai00_model_last_error)
    _kind = "Model"

    def __init__(self, path: Union[str, os.PathLike], *, n_threads: int = 1,
                 forced_isa: Optional[str] = None, vocab_path: Optional[str] = None,
                 progress: Optional[Callable[[int, int], Optional[bool]]] = None,
                 activations: int = Activations.DOT):
        """Loads a weight file. `progress(done, total)` (bytes of tensor data) is called on this
        thread; `done` never decreases and the last call, on success only, is (total, total).
        Returning True cancels (CancelledError); an exception raised by `progress` cancels the
        load and is re-raised. `activations` (an Activations) applies to every evaluation on
        the model; another value is InvalidArgumentError naming the field."""
        p = _ffi.ModelParams()
        p.struct_size = ctypes.sizeof(p)
        _check(lib.ai00_model_params_default(byref(p)))
        p.n_threads = n_threads
        p.forced_isa = _text(forced_isa) if forced_isa else None
        p.vocab_path = _text(os.fspath(vocab_path)) if vocab_path else None
        p.activations = int(activations)
        cb, error = _progress_callback(progress)
        p.progress = cb
        h = c_void_p()
        raw = _text(os.fspath(path))
        status = lib.ai00_model_load(byref(h), raw, len(raw), byref(p))
        if error:
            if status == 0:
                lib.ai00_model_free(h)
            raise error[0]
        _check(status)
        super().__init__(h.value)

    @property
    def info(self) -> ModelInfo:
        i = _ffi.ModelInfoC()
        i.struct_size = ctypes.sizeof(i)
        _check(lib.ai00_model_get_info(byref(i), self._handle))
        return ModelInfo(i.n_layer, i.n_embd, i.n_head, i.head_size, i.n_vocab, i.n_tokens,
                         i.n_threads, i.state_bytes)

    @property
    def isa(self) -> str:
        name = c_char_p()
        _check(lib.ai00_model_isa_name(byref(name), self._handle))
        return name.value.decode("utf-8")

    def info_json(self) -> Dict[str, Any]:
        h = self._handle
        buf, n = _two_call(lambda o, b, c: lib.ai00_model_info_json(o, b, c, h), ctypes.c_char)
        return _json.loads(buf.raw[:n].decode("utf-8"))

    def tokenize(self, text: Union[str, bytes]) -> List[int]:
        h, raw = self._handle, _text(text)
        buf, n = _two_call(lambda o, b, c: lib.ai00_model_tokenize(o, b, c, h, raw, len(raw)),
                           c_uint32)
        return list(buf[:n])

    def detokenize(self, tokens: Sequence[int]) -> str:
        h = self._handle
        ids = (c_uint32 * max(len(tokens), 1))(*tokens)
        buf, n = _two_call(
            lambda o, b, c: lib.ai00_model_detokenize(o, b, c, h, ids, len(tokens)), ctypes.c_char)
        return buf.raw[:n].decode("utf-8")

    def tokenizer(self) -> "Tokenizer":
        return Tokenizer._from_model(self)

    def new_state(self) -> "State":
        return State(self)

    def grammar(self, kbnf: str) -> "Grammar":
        """Compiles KBNF against this model's vocabulary (usable by its generators)."""
        return Grammar._compile(self, kbnf)

    def json_schema_grammar(self, schema: Any,
                            options: Optional["SchemaOptions"] = None) -> "Grammar":
        """A grammar for one JSON document valid under `schema` (validator semantics by
        default; `options` for strict properties or a canonical/compact layout)."""
        return Grammar._from_schema(self, schema, options)


class State(_Handle):
    """One sequence: recurrent state plus sampler state (seed, RNG, penalties)."""
    _free = staticmethod(lib.ai00_state_free)
    _last_error_fn = staticmethod(lib.ai00_state_last_error)
    _kind = "State"

    def __init__(self, model: Model, _handle: Optional[int] = None):
        if _handle is None:
            h = c_void_p()
            _check(lib.ai00_state_new(byref(h), model._handle))
            _handle = h.value
        super().__init__(_handle)
        self.model = model
        self._borrower: Optional["weakref.ref[Generator]"] = None

    def close(self) -> None:
        # A generator borrows its State: free it first so it never outlives the State.
        g = self._borrower() if self._borrower else None
        if g is not None:
            g.close()
        super().close()

    @classmethod
    def load(cls, model: Model, data: bytes) -> "State":
        h = c_void_p()
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        _check(lib.ai00_state_load(byref(h), model._handle, buf, len(data)))
        return cls(model, h.value)

    @classmethod
    def load_file(cls, model: Model, path: Union[str, os.PathLike]) -> "State":
        h, raw = c_void_p(), _text(os.fspath(path))
        _check(lib.ai00_state_load_file(byref(h), model._handle, raw, len(raw)))
        return cls(model, h.value)

    @classmethod
    def load_initial(cls, model: Model, path: Union[str, os.PathLike]) -> "State":
        """A State from an ai00 ``.state`` file (a state-tuned initial state)."""
        h, raw = c_void_p(), _text(os.fspath(path))
        _check(lib.ai00_state_load_initial(byref(h), model._handle, raw, len(raw)))
        return cls(model, h.value)

    def clone(self) -> "State":
        h = c_void_p()
        _check(lib.ai00_state_clone(byref(h), self._handle))
        return State(self.model, h.value)

    def reset(self) -> None:
        _check(lib.ai00_state_reset(self._handle))

    def set_seed(self, seed: int) -> None:
        _check(lib.ai00_state_set_seed(self._handle, seed))

    @property
    def size(self) -> int:
        """Bytes of :meth:`save`."""
        n = c_size_t()
        status = lib.ai00_state_save(byref(n), None, 0, self._handle)
        if status != Status.BUFFER_TOO_SMALL:
            _check(status)
        return n.value

    def save(self) -> bytes:
        h = self._handle
        buf, n = _two_call(lambda o, b, c: lib.ai00_state_save(o, b, c, h), ctypes.c_char)
        return buf.raw[:n]

    def save_file(self, path: Union[str, os.PathLike]) -> None:
        raw = _text(os.fspath(path))
        _check(lib.ai00_state_save_file(self._handle, raw, len(raw)))

    def eval(self, tokens: Sequence[int], logits: bool = True) -> Optional[List[float]]:
        """Feeds tokens; returns the n_vocab logits after the last one (None with logits=False)."""
        ids = (c_uint32 * max(len(tokens), 1))(*tokens)
        n = c_size_t()
        if not logits:
            _check(lib.ai00_state_eval(byref(n), None, 0, self.model._handle, self._handle, ids,
                                       len(tokens)))
            return None
        v = self.model.info.n_vocab
        out = (c_float * v)()
        _check(lib.ai00_state_eval(byref(n), out, v, self.model._handle, self._handle, ids,
                                   len(tokens)))
        return list(out)

    def eval_all(self, tokens: Sequence[int]) -> List[List[float]]:
        """Logits after every token: one row of n_vocab per token."""
        v = self.model.info.n_vocab
        ids = (c_uint32 * max(len(tokens), 1))(*tokens)
        out = (c_float * max(v * len(tokens), 1))()
        n = c_size_t()
        _check(lib.ai00_state_eval_all(byref(n), out, len(out), self.model._handle, self._handle,
                                       ids, len(tokens)))
        return [list(out[i * v:(i + 1) * v]) for i in range(len(tokens))]

    def sample(self, logits: Sequence[float], params: Optional["SamplerParams"] = None) -> int:
        """Draws a token with this State's RNG and penalty table (a manual decode loop)."""
        arr = (c_float * max(len(logits), 1))(*logits)
        tok = c_uint32()
        keep = params._to_c() if params else None
        _check(lib.ai00_state_sample(byref(tok), self._handle,
                                     byref(keep[0]) if keep else None, arr, len(logits)))
        return tok.value


# ---- sampler ----------------------------------------------------------------------------------

_SAMPLER_DEFAULT = _ffi.SamplerParamsC()
_check(lib.ai00_sampler_params_default(byref(_SAMPLER_DEFAULT)))


@dataclass
class SamplerParams:
    """Sampler settings (docs/generation.md "Sampling"); the defaults are the library's
    (``ai00_sampler_params_default``), presets come from :meth:`preset`."""
    method: int = _SAMPLER_DEFAULT.method
    temperature: float = _SAMPLER_DEFAULT.temperature
    top_k: int = _SAMPLER_DEFAULT.top_k
    top_p: float = _SAMPLER_DEFAULT.top_p
    min_p: float = _SAMPLER_DEFAULT.min_p
    typical_tau: float = _SAMPLER_DEFAULT.typical_tau
    mirostat_tau: float = _SAMPLER_DEFAULT.mirostat_tau
    mirostat_rate: float = _SAMPLER_DEFAULT.mirostat_rate
    presence_penalty: float = _SAMPLER_DEFAULT.presence_penalty
    frequency_penalty: float = _SAMPLER_DEFAULT.frequency_penalty
    penalty_decay: float = _SAMPLER_DEFAULT.penalty_decay
    repetition_penalty: float = _SAMPLER_DEFAULT.repetition_penalty
    ban_eos: bool = bool(_SAMPLER_DEFAULT.ban_eos)
    logit_bias: Dict[int, float] = field(default_factory=dict)

    _NAMES = ("method", "temperature", "top_k", "top_p", "min_p", "typical_tau",
              "mirostat_tau", "mirostat_rate", "presence_penalty", "frequency_penalty",
              "penalty_decay", "repetition_penalty")

    @classmethod
    def _from_c(cls, c: _ffi.SamplerParamsC) -> "SamplerParams":
        p = cls(**{n: getattr(c, n) for n in cls._NAMES})
        p.ban_eos = bool(c.ban_eos)
        return p

    @classmethod
    def default(cls) -> "SamplerParams":
        c = _ffi.SamplerParamsC()
        _check(lib.ai00_sampler_params_default(byref(c)))
        return cls._from_c(c)

    @classmethod
    def preset(cls, preset: int) -> "SamplerParams":
        c = _ffi.SamplerParamsC()
        _check(lib.ai00_sampler_params_preset(byref(c), int(preset)))
        return cls._from_c(c)

    def _to_c(self):
        """(struct, bias array): the array must live as long as the struct is used."""
        c = _ffi.SamplerParamsC()
        _check(lib.ai00_sampler_params_default(byref(c)))
        for n in self._NAMES:
            setattr(c, n, int(getattr(self, n)) if n in ("method", "top_k") else getattr(self, n))
        c.ban_eos = 1 if self.ban_eos else 0
        bias = (_ffi.LogitBias * max(len(self.logit_bias), 1))(
            *[_ffi.LogitBias(t, b) for t, b in self.logit_bias.items()])
        c.logit_bias = ctypes.cast(bias, ctypes.POINTER(_ffi.LogitBias))
        c.n_logit_bias = len(self.logit_bias)
        return c, bias


# ---- deltas -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Delta:
    """One streamed piece of a reply (copied out of the library's buffers)."""
    kind: DeltaKind
    text: str = ""
    call: int = 0
    id: str = ""
    name: str = ""
    valid: bool = True
    finish_reason: FinishReason = FinishReason.NONE

    @property
    def arguments(self) -> Any:
        """TOOL_CALL: the arguments parsed from JSON."""
        return _json.loads(self.text)

    @staticmethod
    def _from_c(d: _ffi.DeltaC) -> "Delta":
        return Delta(DeltaKind(d.kind), _string(d.text, d.text_len), d.call,
                     _string(d.id, d.id_len), _string(d.name, d.name_len), bool(d.valid),
                     FinishReason(d.finish_reason))


def _new_delta() -> _ffi.DeltaC:
    d = _ffi.DeltaC()
    d.struct_size = ctypes.sizeof(d)
    return d


# ---- chat template and output parser ----------------------------------------------------------

@dataclass(frozen=True)
class Rendered:
    prompt: str
    stop_sequences: List[str]


def _render_options(add_generation_prompt: bool, thinking: int, tools: Any,
                    assistant_name: Optional[str], reflect: bool = False,
                    introspect: bool = False, prepend_token0: Optional[bool] = None):
    o = _ffi.RenderOptionsC()
    _check(lib.ai00_render_options_default(byref(o)))
    o.add_generation_prompt = 1 if add_generation_prompt else 0
    o.thinking = int(thinking)
    o.reflect, o.introspect = int(bool(reflect)), int(bool(introspect))
    if prepend_token0 is not None:
        o.prepend_token0 = 1 if prepend_token0 else 0
    keep = []
    if tools is not None:
        t = _json_text(tools)
        keep.append(t)
        o.tools_json, o.tools_json_len = t, len(t)
    if assistant_name is not None:
        a = _text(assistant_name)
        keep.append(a)
        o.assistant_name, o.assistant_name_len = a, len(a)
    return o, keep


class ChatTemplate(_Handle):
    """A chat format ("ai00-v1", "ai00-v0", "goose", "openchatml"); one thread at a time."""
    _free = staticmethod(lib.ai00_chat_template_free)
    _last_error_fn = staticmethod(lib.ai00_chat_template_last_error)
    _kind = "ChatTemplate"

    def __init__(self, name: str, *, config: Optional[Union[str, bytes]] = None):
        """`config`: TOML text (docs/chat-formats.md "Configuration"): role names, prefixes,
        Goose and OpenChatML settings, sampling presets; FormatError names config:LINE:COLUMN."""
        h, raw = c_void_p(), _text(name)
        if config is None:
            _check(lib.ai00_chat_template_new(byref(h), raw, len(raw)))
        else:
            toml = _text(config)
            _check(lib.ai00_chat_template_new_with_config(byref(h), raw, len(raw), toml,
                                                          len(toml)))
        super().__init__(h.value)
        self.name = name

    @classmethod
    def with_config(cls, name: str, config: Union[str, bytes]) -> "ChatTemplate":
        return cls(name, config=config)

    def sampler_preset(self, name: str) -> SamplerParams:
        """The sampling preset `name` of this template's configuration ("chat", "math",
        "creative" or one the configuration adds)."""
        c, raw = _ffi.SamplerParamsC(), _text(name)
        _check(lib.ai00_chat_template_sampler_preset(byref(c), self._handle, raw, len(raw)))
        return SamplerParams._from_c(c)

    def _prompt(self, call) -> str:
        ptr, n = c_void_p(), c_size_t()
        _check(call(byref(ptr), byref(n)))
        return _string(ptr.value, n.value)

    def render_fim(self, prefix: Union[str, bytes], suffix: Union[str, bytes]) -> str:
        """A fill-in-the-middle prompt (OpenChatML); the model writes the middle."""
        a, b, h = _text(prefix), _text(suffix), self._handle
        return self._prompt(lambda p, n: lib.ai00_chat_template_render_fim(p, n, h, a, len(a), b,
                                                                           len(b)))

    def render_files(self, files: Sequence[Union[str, bytes]], *,
                     leading_separator: bool = False) -> str:
        """A multi-file sequence joined by the format's file separator (OpenChatML)."""
        raws = [_text(f) for f in files]
        arr = (c_char_p * max(len(raws), 1))(*raws)
        lens = (c_size_t * max(len(raws), 1))(*[len(r) for r in raws])
        h = self._handle
        return self._prompt(lambda p, n: lib.ai00_chat_template_render_files(
            p, n, h, arr, lens, len(raws), 1 if leading_separator else 0))

    def parse_transcript(self, text: Union[str, bytes]) -> List[Dict[str, Any]]:
        """A rendered conversation read back into a list of messages (OpenChatML)."""
        raw, h = _text(text), self._handle
        return _json.loads(self._prompt(
            lambda p, n: lib.ai00_chat_template_parse_transcript(p, n, h, raw, len(raw))))

    def render(self, messages: Any, *, add_generation_prompt: bool = True,
               thinking: int = Thinking.OFF, tools: Any = None,
               assistant_name: Optional[str] = None, reflect: bool = False,
               introspect: bool = False, prepend_token0: Optional[bool] = None) -> Rendered:
        """Renders a conversation (a list of message dicts or its JSON text). `reflect` and
        `introspect` are OpenChatML flags; `prepend_token0` None keeps the template's setting."""
        o, _keep = _render_options(add_generation_prompt, thinking, tools, assistant_name,
                                   reflect, introspect, prepend_token0)
        conv = _json_text(messages)
        ptr, n = c_void_p(), c_size_t()
        _check(lib.ai00_chat_template_render(byref(ptr), byref(n), self._handle, conv, len(conv),
                                             byref(o)))
        prompt = _string(ptr.value, n.value)
        count = c_size_t()
        _check(lib.ai00_chat_template_stop_count(byref(count), self._handle))
        stops = []
        for i in range(count.value):
            _check(lib.ai00_chat_template_stop(byref(ptr), byref(n), self._handle, i))
            stops.append(_string(ptr.value, n.value))
        return Rendered(prompt, stops)

    def last_render(self) -> Dict[str, Any]:
        """The last render with the constrained-decoding hints, as a dict."""
        ptr, n = c_void_p(), c_size_t()
        _check(lib.ai00_chat_template_last_render_json(byref(ptr), byref(n), self._handle))
        return _json.loads(_string(ptr.value, n.value))

    def output_parser(self, *, thinking: int = Thinking.OFF, tools: Any = None,
                      id_seed: int = 0, stream_tool_calls: bool = False) -> "OutputParser":
        return OutputParser(self, thinking=thinking, tools=tools, id_seed=id_seed,
                            stream_tool_calls=stream_tool_calls)


class OutputParser(_Handle):
    """Parses a reply produced elsewhere into the deltas and message a generator would give."""
    _free = staticmethod(lib.ai00_output_parser_free)
    _last_error_fn = staticmethod(lib.ai00_output_parser_last_error)
    _kind = "OutputParser"

    def __init__(self, template: ChatTemplate, *, thinking: int = Thinking.OFF, tools: Any = None,
                 id_seed: int = 0, stream_tool_calls: bool = False):
        """`stream_tool_calls`: also yield TOOL_CALL_START and TOOL_CALL_ARGUMENTS deltas
        while each call streams (the TOOL_CALL delta stays the whole call)."""
        o = _ffi.ParseOptionsC()
        _check(lib.ai00_parse_options_default(byref(o)))
        o.thinking = int(thinking)
        o.stream_tool_calls = 1 if stream_tool_calls else 0
        o.id_seed = id_seed
        t = _json_text(tools) if tools is not None else None
        if t is not None:
            o.tools_json, o.tools_json_len = t, len(t)
        h = c_void_p()
        _check(lib.ai00_output_parser_new(byref(h), template._handle, byref(o)))
        super().__init__(h.value)

    def _drain(self) -> List[Delta]:
        out = []
        n = c_size_t()
        _check(lib.ai00_output_parser_pending(byref(n), self._handle))
        d = _new_delta()
        for _ in range(n.value):
            _check(lib.ai00_output_parser_next(byref(d), self._handle))
            out.append(Delta._from_c(d))
        return out

    def push(self, text: Union[str, bytes]) -> List[Delta]:
        """Feeds output; returns the deltas that became certain."""
        raw = _text(text)
        pending = c_size_t()
        _check(lib.ai00_output_parser_push(byref(pending), self._handle, raw, len(raw)))
        return self._drain()

    def finish(self, reason: int = FinishReason.STOP) -> List[Delta]:
        """Ends the output; returns the remaining deltas, the last being FINISH."""
        _check(lib.ai00_output_parser_finish(self._handle, int(reason)))
        return self._drain()

    def parse(self, text: Union[str, bytes], reason: int = FinishReason.STOP) -> Iterator[Delta]:
        yield from self.push(text)
        yield from self.finish(reason)

    @property
    def finish_reason(self) -> FinishReason:
        r = c_int32()
        _check(lib.ai00_output_parser_finish_reason(byref(r), self._handle))
        return FinishReason(r.value)

    @property
    def message(self) -> Dict[str, Any]:
        ptr, n = c_void_p(), c_size_t()
        _check(lib.ai00_output_parser_message_json(byref(ptr), byref(n), self._handle))
        return _json.loads(_string(ptr.value, n.value))

    @property
    def warnings(self) -> List[str]:
        n = c_size_t()
        _check(lib.ai00_output_parser_warning_count(byref(n), self._handle))
        out, ptr, ln = [], c_void_p(), c_size_t()
        for i in range(n.value):
            _check(lib.ai00_output_parser_warning(byref(ptr), byref(ln), self._handle, i))
            out.append(_string(ptr.value, ln.value))
        return out


# ---- tokenizer --------------------------------------------------------------------------------

class Tokenizer(_Handle):
    """The RWKV World tokenizer; immutable, shareable by threads."""
    _free = staticmethod(lib.ai00_tokenizer_free)
    _last_error_fn = staticmethod(lib.ai00_tokenizer_last_error)
    _kind = "Tokenizer"

    def __init__(self, path: Union[str, os.PathLike], _handle: Optional[int] = None):
        if _handle is None:
            h, raw = c_void_p(), _text(os.fspath(path))
            _check(lib.ai00_tokenizer_load(byref(h), raw, len(raw)))
            _handle = h.value
        super().__init__(_handle)

    @classmethod
    def _from_model(cls, model: Model) -> "Tokenizer":
        h = c_void_p()
        _check(lib.ai00_tokenizer_from_model(byref(h), model._handle))
        return cls("", h.value)

    @property
    def vocab_size(self) -> int:
        n = c_uint32()
        _check(lib.ai00_tokenizer_vocab_size(byref(n), self._handle))
        return n.value

    def encode(self, text: Union[str, bytes]) -> List[int]:
        h, raw = self._handle, _text(text)
        buf, n = _two_call(lambda o, b, c: lib.ai00_tokenizer_encode(o, b, c, h, raw, len(raw)),
                           c_uint32)
        return list(buf[:n])

    def decode(self, tokens: Sequence[int]) -> bytes:
        """The exact bytes the ids stand for (may be invalid UTF-8)."""
        h = self._handle
        ids = (c_uint32 * max(len(tokens), 1))(*tokens)
        buf, n = _two_call(
            lambda o, b, c: lib.ai00_tokenizer_decode(o, b, c, h, ids, len(tokens)), ctypes.c_char)
        return buf.raw[:n]


# ---- grammar ----------------------------------------------------------------------------------

_SCHEMA_DEFAULT = _ffi.SchemaOptionsC()
_check(lib.ai00_schema_options_default(byref(_SCHEMA_DEFAULT)))


@dataclass
class SchemaOptions:
    """JSON Schema conversion options; the defaults are the library's (validator semantics:
    extra keys allowed, any JSON whitespace). `compact` with flexible_whitespace off gives the
    layout without spaces."""
    lenient: bool = bool(_SCHEMA_DEFAULT.lenient)
    strict_properties: bool = bool(_SCHEMA_DEFAULT.strict_properties)
    flexible_whitespace: bool = bool(_SCHEMA_DEFAULT.flexible_whitespace)
    max_whitespace: int = _SCHEMA_DEFAULT.max_whitespace
    compact: bool = bool(_SCHEMA_DEFAULT.compact)

    def _to_c(self) -> _ffi.SchemaOptionsC:
        c = _ffi.SchemaOptionsC()
        _check(lib.ai00_schema_options_default(byref(c)))
        c.lenient, c.strict_properties = int(self.lenient), int(self.strict_properties)
        c.flexible_whitespace, c.max_whitespace = int(self.flexible_whitespace), self.max_whitespace
        c.compact = int(self.compact)
        return c


@dataclass(frozen=True)
class CheckResult:
    verdict: CheckVerdict
    byte_offset: int
    token_index: int
    token_id: int

    @property
    def accepted(self) -> bool:
        return self.verdict == CheckVerdict.ACCEPTED


class Grammar(_Handle):
    """A compiled grammar (KBNF, JSON Schema or tool calls); immutable, shareable."""
    _free = staticmethod(lib.ai00_grammar_free)
    _last_error_fn = staticmethod(lib.ai00_grammar_last_error)
    _kind = "Grammar"

    @classmethod
    def _compile(cls, model: Model, kbnf: str) -> "Grammar":
        h, raw = c_void_p(), _text(kbnf)
        _check(lib.ai00_grammar_compile(byref(h), model._handle, raw, len(raw)))
        return cls(h.value)

    @classmethod
    def _from_schema(cls, model: Model, schema: Any,
                     options: Optional[SchemaOptions] = None) -> "Grammar":
        h, raw = c_void_p(), _json_text(schema)
        if options is None:
            _check(lib.ai00_grammar_from_json_schema(byref(h), model._handle, raw, len(raw)))
        else:
            o = options._to_c()
            _check(lib.ai00_grammar_from_json_schema_with_options(byref(h), model._handle, raw,
                                                                  len(raw), byref(o)))
        return cls(h.value)

    @classmethod
    def from_kbnf(cls, kbnf: str, *, tokenizer: Optional[Tokenizer] = None,
                  start_rule: Optional[str] = None) -> "Grammar":
        """KBNF at byte level (no tokenizer) or over a tokenizer's vocabulary, for checks."""
        p = _ffi.GrammarParamsC()
        _check(lib.ai00_grammar_params_default(byref(p)))
        if start_rule is not None:
            s = _text(start_rule)
            p.start_rule, p.start_rule_len = s, len(s)
        h, raw = c_void_p(), _text(kbnf)
        _check(lib.ai00_grammar_new(byref(h), tokenizer._handle if tokenizer else None, raw,
                                    len(raw), byref(p)))
        return cls(h.value)

    @classmethod
    def from_json_schema(cls, schema: Any, *, tokenizer: Optional[Tokenizer] = None,
                         options: Optional[SchemaOptions] = None) -> "Grammar":
        o = (options or SchemaOptions())._to_c()
        h, raw = c_void_p(), _json_text(schema)
        _check(lib.ai00_grammar_new_from_json_schema(
            byref(h), tokenizer._handle if tokenizer else None, raw, len(raw), byref(o)))
        return cls(h.value)

    @classmethod
    def for_tools(cls, template: ChatTemplate, tools: Any, *,
                  tokenizer: Optional[Tokenizer] = None, level: int = GrammarMode.STRUCTURAL,
                  thinking_start: int = ThinkingStart.OPTIONAL, allow_eos_end: bool = False,
                  schema: Optional[SchemaOptions] = None) -> "Grammar":
        """The tool-call grammar of the template's format for `tools`."""
        p = _ffi.ToolGrammarParamsC()
        _check(lib.ai00_tool_grammar_params_default(byref(p)))
        p.level, p.thinking_start, p.allow_eos_end = int(level), int(thinking_start), int(allow_eos_end)
        so = schema._to_c() if schema else None
        if so is not None:
            p.schema = ctypes.pointer(so)
        h, raw = c_void_p(), _json_text(tools)
        _check(lib.ai00_grammar_new_for_tools(byref(h), tokenizer._handle if tokenizer else None,
                                              template._handle, raw, len(raw), byref(p)))
        return cls(h.value)

    @property
    def kbnf(self) -> str:
        ptr, n = c_void_p(), c_size_t()
        _check(lib.ai00_grammar_kbnf(byref(ptr), byref(n), self._handle))
        return _string(ptr.value, n.value)

    @property
    def warnings(self) -> List[str]:
        n = c_size_t()
        _check(lib.ai00_grammar_warning_count(byref(n), self._handle))
        out, ptr, ln = [], c_void_p(), c_size_t()
        for i in range(n.value):
            _check(lib.ai00_grammar_warning(byref(ptr), byref(ln), self._handle, i))
            out.append(_string(ptr.value, ln.value))
        return out

    def accepts(self, text: Union[str, bytes]) -> bool:
        ok, raw = c_int32(), _text(text)
        _check(lib.ai00_grammar_accepts(byref(ok), self._handle, raw, len(raw)))
        return bool(ok.value)

    def check(self, text: Union[str, bytes]) -> CheckResult:
        r, raw = _ffi.CheckResultC(), _text(text)
        r.struct_size = ctypes.sizeof(r)
        _check(lib.ai00_grammar_check(byref(r), self._handle, raw, len(raw)))
        return CheckResult(CheckVerdict(r.verdict), r.byte_offset, r.token_index, r.token_id)


# ---- generator --------------------------------------------------------------------------------

def _generate_params(max_tokens: Optional[int], seed: Optional[int], grammar: Optional[Grammar],
                     grammar_mode: int, stop: Sequence[str], prefill_chunk: Optional[int],
                     prefix_cache: Optional["PrefixCache"] = None,
                     stream_tool_calls: bool = False,
                     tool_choice: Union[int, str] = ToolChoice.AUTO,
                     parallel_tool_calls: bool = True):
    p = _ffi.GenerateParamsC()
    p.struct_size = ctypes.sizeof(p)
    _check(lib.ai00_generate_params_default(byref(p)))
    if max_tokens is not None:
        p.max_tokens = max_tokens
    if prefill_chunk is not None:
        p.prefill_chunk = prefill_chunk
    if seed is not None:
        p.set_seed, p.seed = 1, seed
    p.grammar_mode = int(grammar_mode)
    if grammar is not None:
        p.grammar = grammar._handle
    stops = (c_char_p * max(len(stop), 1))(*[_text(s) for s in stop])
    p.stop_sequences, p.n_stop_sequences = stops, len(stop)
    if prefix_cache is not None:
        p.prefix_cache = prefix_cache._handle
    p.stream_tool_calls = 1 if stream_tool_calls else 0
    p.parallel_tool_calls = 1 if parallel_tool_calls else 0
    name = None  # the library copies the name during the creation call; kept until then
    if isinstance(tool_choice, (str, bytes)):
        name = _text(tool_choice)
        p.tool_choice = ToolChoice.NAMED
        p.tool_choice_name = ctypes.cast(c_char_p(name), c_void_p)
        p.tool_choice_name_len = len(name)
    elif tool_choice == ToolChoice.NAMED:
        raise InvalidArgumentError(Status.INVALID_ARGUMENT,
                                   "tool_choice: pass the tool's name (a str) for NAMED")
    else:
        p.tool_choice = int(tool_choice)
    return p, (stops, name)


class Generator(_Handle):
    """One turn on one State. Iterate it for :class:`Delta` values (the last is FINISH), or use
    :meth:`run`, :meth:`step` (a token budget, for frame loops) and :meth:`cancel` (any thread).
    It borrows the State until closed: close it (or use ``with``) before using the State again.
    """
    _free = staticmethod(lib.ai00_generator_free)
    _last_error_fn = staticmethod(lib.ai00_generator_last_error)
    _kind = "Generator"

    def __init__(self, handle: int, keep: tuple, cache: Optional["PrefixCache"] = None):
        super().__init__(handle)
        self._keep = keep  # the model, State and grammar objects stay alive with us
        self._finished = False
        self._batch: Optional["weakref.ref[Batch]"] = None
        self._cache = cache  # freed only after us (PrefixCache.close waits)
        if cache is not None:
            cache._retain()

    def close(self) -> None:
        # ai00_generator_free takes a member out of its batch; forget it on our side too.
        b = self._batch() if self._batch else None
        if b is not None and self._h:
            b._members.pop(self._h, None)
        self._batch = None
        had = bool(self._h)
        super().close()
        cache, self._cache = self._cache, None
        if had and cache is not None:
            cache._release()

    @classmethod
    def chat(cls, model: Model, state: State, template: ChatTemplate, messages: Any, *,
             tools: Any = None, thinking: int = Thinking.OFF, add_generation_prompt: bool = True,
             assistant_name: Optional[str] = None, sampler: Optional[SamplerParams] = None,
             max_tokens: Optional[int] = None, seed: Optional[int] = None,
             grammar: Optional[Grammar] = None, grammar_mode: int = GrammarMode.AUTOMATIC,
             stop: Sequence[str] = (), prefill_chunk: Optional[int] = None,
             reflect: bool = False, introspect: bool = False,
             prepend_token0: Optional[bool] = None,
             prefix_cache: Optional["PrefixCache"] = None,
             stream_tool_calls: bool = False, tool_choice: Union[int, str] = ToolChoice.AUTO,
             parallel_tool_calls: bool = True) -> "Generator":
        """A chat turn. ``stream_tool_calls``: also yield TOOL_CALL_START and
        TOOL_CALL_ARGUMENTS deltas before each whole TOOL_CALL. ``tool_choice``: a
        :class:`ToolChoice`, or a tool's name (``str``) to force calls to that tool (a name not
        among ``tools`` raises :class:`InvalidArgumentError` naming it).
        ``parallel_tool_calls=False``: at most one call per reply."""
        ro, _k1 = _render_options(add_generation_prompt, thinking, tools, assistant_name,
                                  reflect, introspect, prepend_token0)
        sp = sampler._to_c() if sampler else None
        gp, _k2 = _generate_params(max_tokens, seed, grammar, grammar_mode, stop, prefill_chunk,
                                   prefix_cache, stream_tool_calls, tool_choice,
                                   parallel_tool_calls)
        if prefix_cache is not None and prefix_cache.closed:
            raise InvalidArgumentError(Status.INVALID_ARGUMENT, "this PrefixCache is closed")
        conv = _json_text(messages)
        h = c_void_p()
        _check(lib.ai00_generator_new_chat(byref(h), model._handle, state._handle,
                                           template._handle, conv, len(conv), byref(ro),
                                           byref(sp[0]) if sp else None, byref(gp)))
        return cls(h.value, (model, state, template, grammar), prefix_cache)._borrow(state)

    @classmethod
    def raw(cls, model: Model, state: State, prompt: Union[str, bytes], *,
            sampler: Optional[SamplerParams] = None, max_tokens: Optional[int] = None,
            seed: Optional[int] = None, grammar: Optional[Grammar] = None,
            stop: Sequence[str] = (), prefill_chunk: Optional[int] = None,
            prefix_cache: Optional["PrefixCache"] = None) -> "Generator":
        sp = sampler._to_c() if sampler else None
        gp, _k = _generate_params(max_tokens, seed, grammar, GrammarMode.AUTOMATIC, stop,
                                  prefill_chunk, prefix_cache)
        if prefix_cache is not None and prefix_cache.closed:
            raise InvalidArgumentError(Status.INVALID_ARGUMENT, "this PrefixCache is closed")
        raw = _text(prompt)
        h = c_void_p()
        _check(lib.ai00_generator_new_raw(byref(h), model._handle, state._handle, raw, len(raw),
                                          byref(sp[0]) if sp else None, byref(gp)))
        return cls(h.value, (model, state, grammar), prefix_cache)._borrow(state)

    def _borrow(self, state: State) -> "Generator":
        state._borrower = weakref.ref(self)
        return self

    def __iter__(self) -> Iterator[Delta]:
        d = _new_delta()
        while not self._finished:
            _check(lib.ai00_generator_next(byref(d), self._handle))
            delta = Delta._from_c(d)
            self._finished = delta.kind == DeltaKind.FINISH
            yield delta

    def run(self, callback: Optional[Callable[[Delta], Optional[bool]]] = None) -> FinishReason:
        """Runs the turn to its end; `callback` gets each delta, returning True stops the turn."""
        error: List[BaseException] = []

        def trampoline(ptr, _user):
            try:
                return 1 if callback(Delta._from_c(ptr.contents)) else 0
            except BaseException as e:  # never unwind through the library
                error.append(e)
                return 1

        cb = _ffi.DeltaCallback(trampoline) if callback else _ffi.DeltaCallback()
        reason = c_int32()
        _check(lib.ai00_generator_run(byref(reason), self._handle, cb, None))
        self._finished = True
        if error:
            raise error[0]
        return FinishReason(reason.value)

    def step(self, max_tokens: int = 1) -> List[Delta]:
        """Bounded work (at most `max_tokens` tokens, or a prefill chunk); returns its deltas."""
        done = c_int32()
        _check(lib.ai00_generator_step(byref(done), self._handle, max_tokens,
                                       _ffi.DeltaCallback(), None))
        n = c_size_t()
        _check(lib.ai00_generator_pending(byref(n), self._handle))
        out, d = [], _new_delta()
        for _ in range(n.value):
            _check(lib.ai00_generator_next(byref(d), self._handle))
            out.append(Delta._from_c(d))
        if done.value or any(x.kind == DeltaKind.FINISH for x in out):
            self._finished = True
        return out

    @property
    def finished(self) -> bool:
        return self._finished

    def cancel(self) -> None:
        """Stops the turn before the next token; safe from any thread while open."""
        h = self._h
        if h:
            _check(lib.ai00_generator_cancel(h))

    @property
    def finish_reason(self) -> FinishReason:
        r = c_int32()
        _check(lib.ai00_generator_finish_reason(byref(r), self._handle))
        return FinishReason(r.value)

    @property
    def message(self) -> Dict[str, Any]:
        ptr, n = c_void_p(), c_size_t()
        _check(lib.ai00_generator_message_json(byref(ptr), byref(n), self._handle))
        return _json.loads(_string(ptr.value, n.value))

    @property
    def warnings(self) -> List[str]:
        n = c_size_t()
        _check(lib.ai00_generator_warning_count(byref(n), self._handle))
        out, ptr, ln = [], c_void_p(), c_size_t()
        for i in range(n.value):
            _check(lib.ai00_generator_warning(byref(ptr), byref(ln), self._handle, i))
            out.append(_string(ptr.value, ln.value))
        return out

    @property
    def tokens(self) -> List[int]:
        ptr, n = ctypes.POINTER(c_uint32)(), c_size_t()
        _check(lib.ai00_generator_tokens(byref(ptr), byref(n), self._handle))
        return list(ptr[:n.value]) if n.value else []

    def text(self) -> str:
        """Runs to the end and returns the content text."""
        return "".join(d.text for d in self if d.kind == DeltaKind.TEXT)


# ---- prefix cache -----------------------------------------------------------------------------

@dataclass(frozen=True)
class PrefixCacheStats:
    """Counters of a :class:`PrefixCache` since it was made."""
    hits: int
    misses: int
    hit_tokens: int
    inserts: int
    evictions: int
    entries: int
    bytes: int
    max_bytes: int
    #: memory set aside for later entries (:meth:`PrefixCache.reserve`, and an evicted entry's
    #: memory on its way to the insert that takes it), counted against ``max_bytes``
    spare_bytes: int


class PrefixCache(_Handle):
    """States after token prefixes (system prompt, persona), reused by generators whose State is
    pristine (new or reset) and whose prompt starts with a stored prefix (docs/prefix-cache.md).
    Thread-safe: any number of threads and generators may share one. Pass it to
    ``Generator.chat``/``Generator.raw`` as ``prefix_cache=``. The library frees a cache only
    after every generator using it: ``close()`` while some are open waits for the last one.
    """
    _free = staticmethod(lib.ai00_prefix_cache_free)
    _last_error_fn = staticmethod(lib.ai00_prefix_cache_last_error)
    _kind = "PrefixCache"

    def __init__(self, *, max_bytes: Optional[int] = None, compress_bf16: bool = False):
        p = _ffi.PrefixCacheParamsC()
        p.struct_size = ctypes.sizeof(p)
        _check(lib.ai00_prefix_cache_params_default(byref(p)))
        if max_bytes is not None:
            p.max_bytes = max_bytes
        p.compress_bf16 = 1 if compress_bf16 else 0
        h = c_void_p()
        _check(lib.ai00_prefix_cache_new(byref(h), byref(p)))
        super().__init__(h.value)
        self._users = 0  # open generators using the cache
        self._closing = False
        self._lock = threading.Lock()  # generators on several threads may share the cache

    def close(self) -> None:
        """Frees the cache, or once the last generator using it is closed."""
        with self._lock:
            if self._users > 0:
                self._closing = True
                return
            super().close()

    @property
    def closed(self) -> bool:
        return self._closing or super().closed

    def _retain(self) -> None:
        with self._lock:
            if self.closed:
                raise InvalidArgumentError(Status.INVALID_ARGUMENT, "this PrefixCache is closed")
            self._users += 1

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._closing:
                self._closing = False
                super().close()

    @property
    def stats(self) -> PrefixCacheStats:
        st = _ffi.PrefixCacheStatsC()
        st.struct_size = ctypes.sizeof(st)
        _check(lib.ai00_prefix_cache_stats_get(byref(st), self._handle))
        return PrefixCacheStats(st.hits, st.misses, st.hit_tokens, st.inserts, st.evictions,
                                st.entries, st.bytes, st.max_bytes, st.spare_bytes)

    def clear(self) -> None:
        """Drops every entry and the memory set aside (the counters other than entries, bytes
        and spare_bytes are kept)."""
        _check(lib.ai00_prefix_cache_clear(self._handle))

    def reserve(self, model: Model, entries: int) -> int:
        """Sets memory aside now for `entries` more entries of `model` (allocated and written,
        so its pages are in), for a loop that must not wait on fresh pages when a generator
        stores a State later; later inserts of that model take this memory first. It counts
        against ``max_bytes`` (``stats.spare_bytes``). Returns how many entries were set aside:
        fewer when the bound is reached, 0 for 0 entries (a negative count is
        :class:`InvalidArgumentError`)."""
        if entries < 0:
            raise InvalidArgumentError(Status.INVALID_ARGUMENT,
                                       f"reserve: entries is negative ({entries})")
        n = c_size_t()
        _check(lib.ai00_prefix_cache_reserve(byref(n), self._handle, model._handle, entries))
        return n.value

    def warm(self, model: Model, tokens: Union[str, bytes, Sequence[int]]) -> int:
        """Stores the State after `tokens` (or a text, encoded by the model) fed to the zero
        state; returns how many tokens ran through the model (0 when all were cached)."""
        n = c_size_t()
        if isinstance(tokens, (str, bytes)):
            raw = _text(tokens)
            _check(lib.ai00_prefix_cache_warm_text(byref(n), self._handle, model._handle, raw,
                                                   len(raw)))
        else:
            arr = (c_uint32 * max(len(tokens), 1))(*tokens)
            _check(lib.ai00_prefix_cache_warm(byref(n), self._handle, model._handle, arr,
                                              len(tokens)))
        return n.value


# ---- option scoring ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Score:
    """One candidate's score: natural-log probability (total and per token)."""
    total_logprob: float
    mean_logprob: float
    n_tokens: int


def _score_params(context: Optional[Sequence[int]], logits: Optional[Sequence[float]]):
    p = _ffi.ScoreParamsC()
    p.struct_size = ctypes.sizeof(p)
    _check(lib.ai00_score_params_default(byref(p)))
    keep = []
    if context is not None:
        ctx = (c_uint32 * max(len(context), 1))(*context)
        keep.append(ctx)
        p.context, p.n_context = ctypes.cast(ctx, POINTER(c_uint32)), len(context)
    if logits is not None:
        lg = (c_float * max(len(logits), 1))(*logits)
        keep.append(lg)
        p.logits, p.n_logits = ctypes.cast(lg, POINTER(c_float)), len(logits)
    return p, keep


def score_options(model: Model, state: State, candidates: Sequence[Sequence[int]], *,
                  context: Optional[Sequence[int]] = None,
                  logits: Optional[Sequence[float]] = None) -> List[Score]:
    """How likely `state` continues with each token sequence, after `context` tokens (fed to a
    copy) or from `logits` (the State's last logits): give exactly one. The State is unchanged.
    No candidates, an empty one or a bad id raise :class:`InvalidArgumentError`."""
    p, keep = _score_params(context, logits)
    k = len(candidates)
    rows = [(c_uint32 * max(len(c), 1))(*c) for c in candidates]
    ptrs = (POINTER(c_uint32) * max(k, 1))(*[ctypes.cast(r, POINTER(c_uint32)) for r in rows])
    lens = (c_size_t * max(k, 1))(*[len(c) for c in candidates])
    out = (_ffi.OptionScoreC * max(k, 1))()
    _check(lib.ai00_state_score_options(out, k, model._handle, state._handle, ptrs, lens, k,
                                        byref(p)))
    return [Score(o.total_logprob, o.mean_logprob, o.n_tokens) for o in out[:k]]


def score_texts(model: Model, state: State, texts: Sequence[Union[str, bytes]], *,
                context: Optional[Sequence[int]] = None,
                logits: Optional[Sequence[float]] = None) -> List[Score]:
    """As :func:`score_options` with texts, each encoded alone (usually starting with a space)."""
    p, keep = _score_params(context, logits)
    k = len(texts)
    raws = [_text(t) for t in texts]
    ptrs = (c_char_p * max(k, 1))(*raws)
    lens = (c_size_t * max(k, 1))(*[len(r) for r in raws])
    out = (_ffi.OptionScoreC * max(k, 1))()
    _check(lib.ai00_state_score_texts(out, k, model._handle, state._handle, ptrs, lens, k,
                                      byref(p)))
    return [Score(o.total_logprob, o.mean_logprob, o.n_tokens) for o in out[:k]]


# ---- state bundles ----------------------------------------------------------------------------

def _bundle_args(states: Mapping[str, State]):
    names = [_text(n) for n in states]
    hs = [s._handle for s in states.values()]
    n = len(hs)
    return ((c_void_p * max(n, 1))(*hs), (c_char_p * max(n, 1))(*names),
            (c_size_t * max(n, 1))(*[len(x) for x in names]), n)


class StateBundle(_Handle):
    """Many named States in one buffer or file. Build one with :meth:`save` / :meth:`save_file`,
    read it with :meth:`open` / :meth:`open_file`; immutable, any thread may read it."""
    _free = staticmethod(lib.ai00_state_bundle_free)
    _last_error_fn = staticmethod(lib.ai00_state_bundle_last_error)
    _kind = "StateBundle"

    @staticmethod
    def save(states: Mapping[str, State]) -> bytes:
        """The bundle bytes of `states` (name -> State, names unique, 1..4096 UTF-8 bytes)."""
        hs, names, lens, n = _bundle_args(states)
        buf, size = _two_call(lambda out, b, cap: lib.ai00_state_bundle_save(
            out, b, cap, hs, names, lens, n), ctypes.c_char)
        return bytes(buf[:size])

    @staticmethod
    def save_file(states: Mapping[str, State], path: Union[str, os.PathLike]) -> None:
        hs, names, lens, n = _bundle_args(states)
        raw = os.fsencode(path)
        _check(lib.ai00_state_bundle_save_file(hs, names, lens, n, raw, len(raw)))

    @classmethod
    def open(cls, data: bytes) -> "StateBundle":
        """Opens bundle bytes (copied), checking every entry: a truncated or corrupt bundle
        raises :class:`ModelFileError` naming the entry and offset."""
        h = c_void_p()
        buf = ctypes.create_string_buffer(bytes(data), max(len(data), 1))
        _check(lib.ai00_state_bundle_open(byref(h), buf, len(data)))
        return cls(h.value)

    @classmethod
    def open_file(cls, path: Union[str, os.PathLike]) -> "StateBundle":
        h = c_void_p()
        raw = os.fsencode(path)
        _check(lib.ai00_state_bundle_open_file(byref(h), raw, len(raw)))
        return cls(h.value)

    def __len__(self) -> int:
        n = c_size_t()
        _check(lib.ai00_state_bundle_count(byref(n), self._handle))
        return n.value

    def name(self, index: int) -> str:
        ptr, n = c_void_p(), c_size_t()
        _check(lib.ai00_state_bundle_name(byref(ptr), byref(n), self._handle, index))
        return _string(ptr.value, n.value)

    @property
    def names(self) -> List[str]:
        return [self.name(i) for i in range(len(self))]

    def find(self, name: str) -> int:
        """The index of the entry `name` (:class:`InvalidArgumentError` when there is none)."""
        raw = _text(name)
        i = c_size_t()
        _check(lib.ai00_state_bundle_find(byref(i), self._handle, raw, len(raw)))
        return i.value

    def load(self, model: Model, entry: Union[int, str]) -> State:
        """A new State of `model` from an entry (index or name)."""
        index = self.find(entry) if isinstance(entry, str) else entry
        h = c_void_p()
        _check(lib.ai00_state_bundle_load(byref(h), self._handle, model._handle, index))
        return State(model, h.value)

    def load_all(self, model: Model) -> Dict[str, State]:
        return {self.name(i): self.load(model, i) for i in range(len(self))}


# ---- batch ------------------------------------------------------------------------------------

class BatchEventKind(enum.IntEnum):
    DELTA = 0
    FINISHED = 1
    ERROR = 2


@dataclass(frozen=True)
class BatchEvent:
    """What happened to one member in a step: a delta, its end, or its failure."""
    generator: "Generator"
    kind: BatchEventKind
    finish_reason: FinishReason = FinishReason.NONE
    delta: Optional[Delta] = None
    error: str = ""


@dataclass(frozen=True)
class BatchStepResult:
    steps: int
    tokens_sampled: int
    prompt_tokens: int
    time_limited: bool
    unfinished: int
    events: List[BatchEvent] = field(default_factory=list)


class Batch(_Handle):
    """Many generators of ONE model advanced together, one pass over the weights per step
    (docs/batching.md). Every member gives exactly the tokens it gives alone. The batch keeps
    its members alive; while in a batch a generator cannot be run, iterated or stepped alone.
    One thread at a time uses a batch; ``member.cancel()`` works from any thread.
    """
    _free = staticmethod(lib.ai00_batch_free)
    _last_error_fn = staticmethod(lib.ai00_batch_last_error)
    _kind = "Batch"

    def __init__(self, model: Model, *, pass_rows: Optional[int] = None):
        p = _ffi.BatchParamsC()
        p.struct_size = ctypes.sizeof(p)
        _check(lib.ai00_batch_params_default(byref(p)))
        if pass_rows is not None:
            p.pass_rows = pass_rows
        h = c_void_p()
        _check(lib.ai00_batch_new(byref(h), model._handle, byref(p)))
        super().__init__(h.value)
        self.model = model
        self._members: Dict[int, Generator] = {}

    def close(self) -> None:
        for g in self._members.values():
            g._batch = None
        self._members = {}
        super().close()

    def add(self, generator: Generator) -> None:
        """Adds a member. A generator of another model raises :class:`MismatchError`; one already
        in a batch :class:`InvalidArgumentError`."""
        _check(lib.ai00_batch_add(self._handle, generator._handle))
        self._members[generator._handle] = generator
        generator._batch = weakref.ref(self)

    def remove(self, generator: Generator) -> None:
        """Takes a member out; it may then be stepped alone and continues exactly."""
        _check(lib.ai00_batch_remove(self._handle, generator._handle))
        self._members.pop(generator._handle, None)
        generator._batch = None

    def __len__(self) -> int:
        n = c_size_t()
        _check(lib.ai00_batch_size(byref(n), self._handle))
        return n.value

    @property
    def members(self) -> List[Generator]:
        return list(self._members.values())

    def step(self, max_tokens: int = 1, time_budget_us: int = 0,
             whole_batch: bool = False) -> BatchStepResult:
        """One bounded advance: at most `max_tokens` tokens per decoding member and, with a time
        budget (microseconds), only steps predicted to fit; when one token per member does not
        fit, the first step advances the members that fit, least recently advanced first (all of
        them with `whole_batch`). Returns the summary and the events in order (per member: its
        deltas, then one FINISHED or ERROR)."""
        p = _ffi.BatchStepParamsC()
        p.struct_size = ctypes.sizeof(p)
        _check(lib.ai00_batch_step_params_default(byref(p)))
        p.max_tokens, p.time_budget_us = max_tokens, time_budget_us
        p.whole_batch = 1 if whole_batch else 0
        r = _ffi.BatchStepResultC()
        r.struct_size = ctypes.sizeof(r)
        _check(lib.ai00_batch_step(byref(r), self._handle, byref(p), _ffi.BatchEventCallback(),
                                   None))
        n = c_size_t()
        _check(lib.ai00_batch_pending(byref(n), self._handle))
        events: List[BatchEvent] = []
        e, has = _ffi.BatchEventC(), c_int32()
        e.struct_size = ctypes.sizeof(e)
        for _ in range(n.value):
            _check(lib.ai00_batch_next_event(byref(has), byref(e), self._handle))
            if not has.value:
                break
            events.append(self._event(e))
        return BatchStepResult(r.steps, r.tokens_sampled, r.prompt_tokens, bool(r.time_limited),
                               r.unfinished, events)

    def _event(self, e: _ffi.BatchEventC) -> BatchEvent:
        gen = self._members[e.generator]
        kind = BatchEventKind(e.kind)
        if kind == BatchEventKind.DELTA:
            delta = Delta._from_c(e.delta)
            if delta.kind == DeltaKind.FINISH:
                gen._finished = True
            return BatchEvent(gen, kind, FinishReason.NONE, delta)
        gen._finished = True
        return BatchEvent(gen, kind, FinishReason(e.finish_reason), None,
                          _string(e.error, e.error_len))

    def events(self, max_tokens: int = 1, time_budget_us: int = 0) -> Iterator[BatchEvent]:
        """Steps until every member has finished, yielding the events as they come."""
        while True:
            r = self.step(max_tokens, time_budget_us)
            yield from r.events
            if r.steps == 0 or r.unfinished == 0:
                return
