"""UI Automation and MSAA through raw COM vtable calls (ctypes only: no comtypes, no generated
wrappers). Slot numbers follow UIAutomationClient.h and oleacc.h (IUnknown's three come first).

COM is initialised per calling thread (multithreaded apartment, as UI Automation clients should).
Each node holds one reference and releases it when collected.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import uuid
from ctypes import POINTER, byref, c_int, c_long, c_ulong, c_ushort, c_void_p
from typing import Any

from rpa_agent.port import Box
from rpa_agent.windows.api import UiaUnavailable
from rpa_agent.windows.prototypes import HANDLE, POINT, RECT

CLSCTX_INPROC_SERVER = 0x1
COINIT_MULTITHREADED = 0x0
RPC_E_CHANGED_MODE = -2147417850  # 0x80010106: the thread already chose another apartment: usable
OBJID_WINDOW, OBJID_MENU, OBJID_CLIENT = 0, -3, -4
E_NOTIMPL = -2147467263  # 0x80004001
CHILDID_SELF = 0
VT_I4, VT_BSTR, VT_DISPATCH = 3, 8, 9
UIA_VALUE_PATTERN_ID = 10002
UIA_TOGGLE_PATTERN_ID = 10015

# IUIAutomation (55 methods after IUnknown's 3), then IUIAutomation2 (Windows 8+)
UIA_ELEMENT_FROM_HANDLE, UIA_ELEMENT_FROM_POINT, UIA_GET_FOCUSED_ELEMENT, UIA_CONTROL_VIEW_WALKER = 6, 7, 8, 14
# IUIAutomationTreeWalker
WALKER_FIRST_CHILD, WALKER_NEXT_SIBLING = 4, 6
UIA2_PUT_CONNECTION_TIMEOUT, UIA2_PUT_TRANSACTION_TIMEOUT = 61, 63
# A hung application must not hold the agent: UI Automation gives up after these (its own defaults: 2 s, 20 s).
CONNECTION_TIMEOUT_MS, TRANSACTION_TIMEOUT_MS = 2000, 5000
QUERY_INTERFACE, ADD_REF = 0, 1
# IUIAutomationElement
EL_GET_CURRENT_PATTERN_AS, EL_CONTROL_TYPE, EL_NAME, EL_IS_PASSWORD = 14, 21, 23, 35
EL_IS_OFFSCREEN, EL_BOUNDING_RECTANGLE = 38, 43
# IUIAutomationValuePattern, IUIAutomationTogglePattern
VALUE_GET_CURRENT_VALUE = 4
TOGGLE_GET_CURRENT_STATE = 4
# IAccessible (IDispatch's four after IUnknown's three)
ACC_CHILD_COUNT, ACC_NAME, ACC_VALUE, ACC_ROLE, ACC_STATE, ACC_LOCATION = 8, 10, 11, 13, 14, 22
RELEASE = 2


class GUID(ctypes.Structure):
    _fields_ = [("data1", ctypes.c_uint32), ("data2", c_ushort), ("data3", c_ushort), ("data4", ctypes.c_ubyte * 8)]

    @classmethod
    def parse(cls, text: str) -> GUID:
        raw = uuid.UUID(text).bytes_le
        guid = cls()
        ctypes.memmove(byref(guid), raw, 16)
        return guid


CLSID_CUIAutomation = GUID.parse("ff48dba4-60ef-4201-aa87-54103eef594e")
IID_IUIAutomation = GUID.parse("30cbe57d-d9d0-452a-ab13-7ac5ac4825ee")
IID_IUIAutomation2 = GUID.parse("34723aff-0c9d-49d0-9896-7ab52df8cd8a")
IID_IUIAutomationValuePattern = GUID.parse("a94cd8b1-0844-4cd6-9d2d-640537ab39e9")
IID_IUIAutomationTogglePattern = GUID.parse("94cf8058-9b8d-4ab9-8bfd-4cd0a33c8c70")
IID_IAccessible = GUID.parse("618736e0-3c3d-11cf-810c-00aa00389b71")


class _VARIANT_VALUE(ctypes.Union):
    _fields_ = [
        ("llVal", ctypes.c_longlong),
        ("lVal", c_long),
        ("bstrVal", c_void_p),
        ("pdispVal", c_void_p),
        ("_pad", c_void_p * 2),
    ]


class VARIANT(ctypes.Structure):
    _fields_ = [("vt", c_ushort), ("r1", c_ushort), ("r2", c_ushort), ("r3", c_ushort), ("v", _VARIANT_VALUE)]

    @classmethod
    def i4(cls, value: int) -> VARIANT:
        variant = cls()
        variant.vt = VT_I4
        variant.v.lVal = value
        return variant


def _method(pointer: int, slot: int, *argtypes: Any) -> Any:
    """The function at `slot` of a COM object's vtable, returning the raw HRESULT."""
    vtable = ctypes.cast(pointer, POINTER(POINTER(c_void_p))).contents
    prototype = ctypes.WINFUNCTYPE(c_long, c_void_p, *argtypes)
    return prototype(vtable[slot])


def _release(pointer: int) -> None:
    vtable = ctypes.cast(pointer, POINTER(POINTER(c_void_p))).contents
    ctypes.WINFUNCTYPE(c_ulong, c_void_p)(vtable[RELEASE])(pointer)


def _add_ref(pointer: int) -> None:
    vtable = ctypes.cast(pointer, POINTER(POINTER(c_void_p))).contents
    ctypes.WINFUNCTYPE(c_ulong, c_void_p)(vtable[ADD_REF])(pointer)


def _checked(hresult: int, call: str) -> None:
    """A failed HRESULT of a walk's call as OSError (the walk then answers nothing)."""
    if hresult < 0:
        raise OSError(f"{call} failed (HRESULT 0x{hresult & 0xFFFFFFFF:08X})")


class _ComObject:
    def __init__(self, com: Com, pointer: int) -> None:
        self._com = com
        self.pointer = pointer

    def __del__(self) -> None:
        if self.pointer:
            _release(self.pointer)
            self.pointer = 0

    def _bstr(self, slot: int, *args: Any, argtypes: tuple[Any, ...] = ()) -> str | None:
        out = c_void_p()
        hresult = _method(self.pointer, slot, *argtypes, POINTER(c_void_p))(self.pointer, *args, byref(out))
        return self._com.take_bstr(out) if hresult == 0 else None


class UiaElement(_ComObject):
    """One IUIAutomationElement (the `UiaNode` of the boundary)."""

    def name(self) -> str:
        return self._bstr(EL_NAME) or ""

    def control_type(self) -> int:
        out = c_int()
        _method(self.pointer, EL_CONTROL_TYPE, POINTER(c_int))(self.pointer, byref(out))
        return int(out.value)

    def is_password(self) -> bool:
        out = c_int()
        hresult = _method(self.pointer, EL_IS_PASSWORD, POINTER(c_int))(self.pointer, byref(out))
        return hresult != 0 or bool(out.value)  # unknown counts as a password: never read its value

    def box(self) -> Box | None:
        rect = RECT()
        hresult = _method(self.pointer, EL_BOUNDING_RECTANGLE, POINTER(RECT))(self.pointer, byref(rect))
        return rect.box() if hresult == 0 else None

    def value(self) -> str | None:
        pattern = self._pattern(UIA_VALUE_PATTERN_ID, IID_IUIAutomationValuePattern)
        return pattern._bstr(VALUE_GET_CURRENT_VALUE) if pattern is not None else None

    def toggle_state(self) -> int | None:
        pattern = self._pattern(UIA_TOGGLE_PATTERN_ID, IID_IUIAutomationTogglePattern)
        if pattern is None:
            return None
        out = c_int()
        hresult = _method(pattern.pointer, TOGGLE_GET_CURRENT_STATE, POINTER(c_int))(pattern.pointer, byref(out))
        return int(out.value) if hresult == 0 else None

    def is_offscreen(self) -> bool:
        out = c_int()
        hresult = _method(self.pointer, EL_IS_OFFSCREEN, POINTER(c_int))(self.pointer, byref(out))
        return hresult != 0 or bool(out.value)  # unknown counts as off screen: never clicked

    def children(self, limit: int) -> list[UiaElement]:
        """The control view's children through its tree walker, at most `limit`."""
        if limit <= 0:
            return []
        walker = self._com.control_walker()
        step = _method(walker, WALKER_FIRST_CHILD, c_void_p, POINTER(c_void_p))
        out = c_void_p()
        _checked(step(walker, self.pointer, byref(out)), "GetFirstChildElement")
        found: list[UiaElement] = []
        while out.value:
            found.append(UiaElement(self._com, out.value))
            if len(found) >= limit:
                break
            step, out = _method(walker, WALKER_NEXT_SIBLING, c_void_p, POINTER(c_void_p)), c_void_p()
            _checked(step(walker, found[-1].pointer, byref(out)), "GetNextSiblingElement")
        return found

    def _pattern(self, pattern_id: int, iid: GUID) -> _ComObject | None:
        """The element's control pattern as the interface `iid` (released with it), None without it."""
        pattern = c_void_p()
        get = _method(self.pointer, EL_GET_CURRENT_PATTERN_AS, c_int, POINTER(GUID), POINTER(c_void_p))
        if get(self.pointer, pattern_id, byref(iid), byref(pattern)) != 0 or not pattern.value:
            return None
        return _ComObject(self._com, pattern.value)


class MsaaElement(_ComObject):
    """One IAccessible and a child id (the `MsaaNode` of the boundary)."""

    def __init__(self, com: Com, pointer: int, child: int) -> None:
        super().__init__(com, pointer)
        self._child_id = child
        self._child = VARIANT.i4(child)

    def name(self) -> str:
        return self._bstr(ACC_NAME, self._child, argtypes=(VARIANT,)) or ""

    def value(self) -> str | None:
        return self._bstr(ACC_VALUE, self._child, argtypes=(VARIANT,))

    def role(self) -> int:
        return self._int_variant(ACC_ROLE)

    def state(self) -> int:
        return self._int_variant(ACC_STATE)

    def box(self) -> Box | None:
        left, top, width, height = c_long(), c_long(), c_long(), c_long()
        location = _method(self.pointer, ACC_LOCATION, *([POINTER(c_long)] * 4), VARIANT)
        if location(self.pointer, byref(left), byref(top), byref(width), byref(height), self._child) != 0:
            return None
        return (left.value, top.value, width.value, height.value)

    def children(self, limit: int) -> list[MsaaElement]:
        """AccessibleChildren, at most `limit`: an object of its own (VT_DISPATCH, asked for IAccessible), or
        a simple element of this one (VT_I4 child id, which has no children of its own)."""
        if self._child_id != CHILDID_SELF or limit <= 0:
            return []
        count = c_long()
        hresult = _method(self.pointer, ACC_CHILD_COUNT, POINTER(c_long))(self.pointer, byref(count))
        if hresult == E_NOTIMPL:  # Wine's window objects answer nothing (no role either): their window's parts do
            return self._com.window_parts(self.pointer)[:limit] if self.role() == 0 else []
        _checked(hresult, "accChildCount")
        wanted = min(int(count.value), limit)
        if wanted <= 0:
            return []
        array, obtained = (VARIANT * wanted)(), c_long()
        _checked(
            self._com.oleacc.AccessibleChildren(self.pointer, 0, wanted, array, byref(obtained)), "AccessibleChildren"
        )
        found: list[MsaaElement] = []
        for variant in array[: max(0, min(int(obtained.value), wanted))]:
            if variant.vt == VT_DISPATCH and variant.v.pdispVal:
                accessible = self._com.query_accessible(variant.v.pdispVal)
                if accessible:
                    found.append(MsaaElement(self._com, accessible, CHILDID_SELF))
            elif variant.vt == VT_I4 and variant.v.lVal != CHILDID_SELF:
                _add_ref(self.pointer)  # the simple element shares its parent's IAccessible
                found.append(MsaaElement(self._com, self.pointer, int(variant.v.lVal)))
            self._com.clear_variant(variant)
        return found

    def _int_variant(self, slot: int) -> int:
        out = VARIANT()
        if _method(self.pointer, slot, VARIANT, POINTER(VARIANT))(self.pointer, self._child, byref(out)) != 0:
            return 0
        value = int(out.v.lVal) & 0xFFFFFFFF if out.vt == VT_I4 else 0
        self._com.clear_variant(out)
        return value


def _bound_timeouts(automation: int) -> None:
    """IUIAutomation2's connection and transaction timeouts, when it has that interface (Windows 8+)."""
    second = c_void_p()
    query = _method(automation, QUERY_INTERFACE, POINTER(GUID), POINTER(c_void_p))
    if query(automation, byref(IID_IUIAutomation2), byref(second)) != 0 or not second.value:
        return
    try:
        _method(second.value, UIA2_PUT_CONNECTION_TIMEOUT, ctypes.c_uint32)(second.value, CONNECTION_TIMEOUT_MS)
        _method(second.value, UIA2_PUT_TRANSACTION_TIMEOUT, ctypes.c_uint32)(second.value, TRANSACTION_TIMEOUT_MS)
    finally:
        _release(second.value)


class Com:
    """CoInitializeEx per thread, CoCreateInstance(CUIAutomation) once, oleacc's entry points."""

    def __init__(self) -> None:
        if sys.platform != "win32":
            raise OSError("COM needs Windows (or Wine)")
        self.ole32 = ctypes.WinDLL("ole32")
        self.oleaut32 = ctypes.WinDLL("oleaut32")
        self.oleacc = ctypes.WinDLL("oleacc")
        self.ole32.CoInitializeEx.restype, self.ole32.CoInitializeEx.argtypes = c_long, [c_void_p, c_ulong]
        self.ole32.CoCreateInstance.restype = c_long
        self.ole32.CoCreateInstance.argtypes = [POINTER(GUID), c_void_p, c_ulong, POINTER(GUID), POINTER(c_void_p)]
        self.oleaut32.SysFreeString.restype, self.oleaut32.SysFreeString.argtypes = None, [c_void_p]
        self.oleaut32.VariantClear.restype, self.oleaut32.VariantClear.argtypes = c_long, [POINTER(VARIANT)]
        self.oleacc.AccessibleObjectFromPoint.restype = c_long
        self.oleacc.AccessibleObjectFromPoint.argtypes = [POINT, POINTER(c_void_p), POINTER(VARIANT)]
        self.oleacc.AccessibleObjectFromWindow.restype = c_long
        self.oleacc.AccessibleObjectFromWindow.argtypes = [HANDLE, c_long, POINTER(GUID), POINTER(c_void_p)]
        self.oleacc.WindowFromAccessibleObject.restype = c_long
        self.oleacc.WindowFromAccessibleObject.argtypes = [c_void_p, POINTER(HANDLE)]
        self.oleacc.AccessibleChildren.restype = c_long
        self.oleacc.AccessibleChildren.argtypes = [c_void_p, c_long, c_long, POINTER(VARIANT), POINTER(c_long)]
        self._local = threading.local()
        self._automation: int | None = None
        self._walker: int | None = None
        self._lock = threading.Lock()

    def take_bstr(self, bstr: c_void_p) -> str:
        if not bstr.value:
            return ""
        try:
            return ctypes.wstring_at(bstr.value)
        finally:
            self.oleaut32.SysFreeString(bstr)

    def clear_variant(self, variant: VARIANT) -> None:
        self.oleaut32.VariantClear(byref(variant))

    def _init_thread(self) -> None:
        if not getattr(self._local, "ready", False):
            hresult = int(self.ole32.CoInitializeEx(None, COINIT_MULTITHREADED))
            if hresult not in (0, 1, RPC_E_CHANGED_MODE):
                raise OSError(f"CoInitializeEx failed (HRESULT 0x{hresult & 0xFFFFFFFF:08X})")
            self._local.ready = True

    def _uia(self) -> int:
        self._init_thread()
        with self._lock:
            if self._automation is None:
                out = c_void_p()
                hresult = int(
                    self.ole32.CoCreateInstance(
                        byref(CLSID_CUIAutomation), None, CLSCTX_INPROC_SERVER, byref(IID_IUIAutomation), byref(out)
                    )
                )
                if hresult != 0 or not out.value:
                    raise UiaUnavailable(hresult)
                self._automation = out.value
                _bound_timeouts(out.value)
            return self._automation

    def control_walker(self) -> int:
        """IUIAutomation's control view walker, made once."""
        automation = self._uia()
        with self._lock:
            if self._walker is None:
                out = c_void_p()
                get = _method(automation, UIA_CONTROL_VIEW_WALKER, POINTER(c_void_p))
                _checked(get(automation, byref(out)), "get_ControlViewWalker")
                if not out.value:
                    raise OSError("get_ControlViewWalker gave no walker")
                self._walker = out.value
            return self._walker

    def query_accessible(self, unknown: int) -> int:
        """The IAccessible of a COM object (a new reference), 0 when it has none."""
        out = c_void_p()
        query = _method(unknown, QUERY_INTERFACE, POINTER(GUID), POINTER(c_void_p))
        if query(unknown, byref(IID_IAccessible), byref(out)) != 0 or not out.value:
            return 0
        return int(out.value)

    def uia_window(self, hwnd: int) -> UiaElement | None:
        automation = self._uia()
        out = c_void_p()
        if _method(automation, UIA_ELEMENT_FROM_HANDLE, HANDLE, POINTER(c_void_p))(automation, hwnd, byref(out)):
            return None
        return UiaElement(self, out.value) if out.value else None

    def uia_element_at(self, x: int, y: int) -> UiaElement | None:
        automation = self._uia()
        out = c_void_p()
        if _method(automation, UIA_ELEMENT_FROM_POINT, POINT, POINTER(c_void_p))(automation, POINT(x, y), byref(out)):
            return None
        return UiaElement(self, out.value) if out.value else None

    def uia_focused(self) -> UiaElement | None:
        automation = self._uia()
        out = c_void_p()
        if _method(automation, UIA_GET_FOCUSED_ELEMENT, POINTER(c_void_p))(automation, byref(out)):
            return None
        return UiaElement(self, out.value) if out.value else None

    def msaa_element_at(self, x: int, y: int) -> MsaaElement | None:
        self._init_thread()
        out, child = c_void_p(), VARIANT()
        if self.oleacc.AccessibleObjectFromPoint(POINT(x, y), byref(out), byref(child)) != 0 or not out.value:
            return None
        child_id = int(child.v.lVal) if child.vt == VT_I4 else CHILDID_SELF
        return MsaaElement(self, out.value, child_id)

    def msaa_window(self, hwnd: int, object_id: int = OBJID_CLIENT) -> MsaaElement | None:
        self._init_thread()
        out = c_void_p()
        if self.oleacc.AccessibleObjectFromWindow(hwnd, object_id, byref(IID_IAccessible), byref(out)) != 0:
            return None
        return MsaaElement(self, out.value, CHILDID_SELF) if out.value else None

    def msaa_frame(self, hwnd: int) -> MsaaElement | None:
        return self.msaa_window(hwnd, OBJID_WINDOW)

    def window_parts(self, accessible: int) -> list[MsaaElement]:
        """The menu bar and client area objects of the window an object stands for (none when it says no window)."""
        hwnd = HANDLE()
        if self.oleacc.WindowFromAccessibleObject(accessible, byref(hwnd)) != 0 or not hwnd.value:
            return []
        parts = (self.msaa_window(hwnd.value, part) for part in (OBJID_MENU, OBJID_CLIENT))
        return [part for part in parts if part is not None]
