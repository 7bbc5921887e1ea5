// Reading sources: exact-dict and item lookups (a str key's lookup remembered against the dict's
// version tag), instance dicts (`obj.__dict__`), closure cells. The check loop (run.cpp) calls these for F_* instructions.

#include "accel.h"
#include "dict_layout_313.h"

namespace loom_accel {

namespace {

#if PY_VERSION_HEX < 0x030E0000
// CPython (3.11-3.13) gives every dict state a unique version tag: a new dict and every modification
// get a fresh value from a global counter. The same dict object with the same tag holds the same
// entries, so a lookup made in that state can be reused.
#define LOOM_DICT_VERSIONS 1
inline uint64_t dict_version(PyObject* d) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return reinterpret_cast<PyDictObject*>(d)->ma_version_tag;
#pragma GCC diagnostic pop
}
// Whether the dict's version tag changes with its contents. Not on 3.13 for a dict that shares an
// object's inline values (ma_values set: a materialised instance __dict__): `obj.attr = v` writes into
// those values without a new tag, so a lookup remembered against the tag would go stale.
inline bool version_tracks_contents(PyObject* d) {
#if PY_VERSION_HEX >= 0x030D0000
  return reinterpret_cast<PyDictObject*>(d)->ma_values == nullptr;
#else
  (void)d;
  return true;
#endif
}
#if LOOM_SPLIT_DICT_LOOKUP
// A split dict's tag does not track its values: remember where `key` sits in its shared keys instead,
// if `v` (just found the slow way) is the value in that slot.
void remember_split_slot(PyObject* d, PyObject* key, PyObject* v, Instr* cache) {
  py313::DictKeys* keys = py313::keys_of(d);
  Py_ssize_t index = py313::split_index(keys, key);
  if (index >= 0 && py313::split_value(d, keys, index, key) == v) {
    cache->dc_keys = keys;
    cache->dc_index = index;
  }
}
#endif
#else
#define LOOM_DICT_VERSIONS 0
#endif

}  // namespace

// Value of a closure cell (or the object itself when it is not a cell); new reference or NULL
// (NULL without an exception means "cannot be read").
PyObject* cell_value(PyObject* cell) {
  if (PyCell_Check(cell)) {
    PyObject* v = PyCell_GET(cell);
    if (v == nullptr) {
      PyErr_SetString(PyExc_ValueError, "empty closure cell");
      return nullptr;
    }
    Py_INCREF(v);
    return v;
  }
  Py_INCREF(cell);
  return cell;
}

// d[key] for an exact dict, without side effects: new reference, or NULL with KeyError (or another
// error) set. With `cache`, a str key's lookup is remembered against the dict's version tag.
PyObject* dict_get(PyObject* d, PyObject* key, Instr* cache) {
#if LOOM_DICT_VERSIONS
  if (cache != nullptr && d == cache->dc_dict && dict_version(d) == cache->dc_version) {
    Py_INCREF(cache->dc_value);
    return cache->dc_value;
  }
#endif
#if LOOM_SPLIT_DICT_LOOKUP
  // Any dict sharing the remembered keys (not only the one it was found in: every instance of a class)
  if (cache != nullptr && cache->dc_keys != nullptr) {
    PyObject* v = py313::split_value(d, static_cast<py313::DictKeys*>(cache->dc_keys), cache->dc_index, key);
    if (v != nullptr) {
      Py_INCREF(v);
      return v;
    }
  }
#endif
  PyObject* v = PyDict_GetItemWithError(d, key);
  if (v == nullptr) {
    if (!PyErr_Occurred()) {
      PyErr_SetObject(PyExc_KeyError, key);
    }
    return nullptr;
  }
#if LOOM_DICT_VERSIONS
  if (cache != nullptr && PyUnicode_CheckExact(key)) {  // a str lookup runs no user code
    if (version_tracks_contents(d)) {
      cache->dc_dict = d;
      cache->dc_version = dict_version(d);
      cache->dc_value = v;
    }
#if LOOM_SPLIT_DICT_LOOKUP
    else {
      remember_split_slot(d, key, v, cache);
    }
#endif
  }
#endif
  Py_INCREF(v);
  return v;
}

// base[key] as loom_guards.sources.get_item does it: exact dicts, lists and tuples directly, dict
// subclasses that keep dict's __getitem__ without running __missing__, the rest by __getitem__.
PyObject* item_get(PyObject* base, PyObject* key, Instr* cache) {
  PyTypeObject* tp = Py_TYPE(base);
  if ((tp == &PyTuple_Type || tp == &PyList_Type) && PyLong_CheckExact(key)) {
    Py_ssize_t i = PyLong_AsSsize_t(key);
    if (i == -1 && PyErr_Occurred()) {
      return nullptr;
    }
    Py_ssize_t n = Py_SIZE(base);
    if (i < 0) {
      i += n;
    }
    if (i < 0 || i >= n) {
      PyErr_SetString(PyExc_IndexError, "index out of range");
      return nullptr;
    }
    PyObject* v = tp == &PyTuple_Type ? PyTuple_GET_ITEM(base, i) : PyList_GET_ITEM(base, i);
    Py_INCREF(v);
    return v;
  }
  if (tp == &PyDict_Type) {
    return dict_get(base, key, cache);
  }
  if (PyDict_Check(base) && tp->tp_as_mapping != nullptr &&
      tp->tp_as_mapping->mp_subscript == PyDict_Type.tp_as_mapping->mp_subscript) {
    return dict_get(base, key, nullptr);  // a dict subclass keeping dict's __getitem__: no __missing__
  }
  return PyObject_GetItem(base, key);
}

// obj.__dict__ (new reference): the generic instance dict when the class does not override
// `__dict__` (checked once per type version), else whatever `obj.__dict__` returns.
PyObject* instance_dict(PyObject* obj, Instr& in) {
  PyTypeObject* tp = Py_TYPE(obj);
  if (tp == in.dict_type && tp->tp_version_tag == in.dict_type_version &&
      (tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
    return PyObject_GenericGetDict(obj, nullptr);
  }
  PyObject* descr = _PyType_Lookup(tp, s_dict);
  if (descr != nullptr && (tp->tp_flags & Py_TPFLAGS_MANAGED_DICT) && Py_IS_TYPE(descr, &PyGetSetDescr_Type) &&
      reinterpret_cast<PyGetSetDescrObject*>(descr)->d_getset->get == g_subtype_dict) {
    if (tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) {
      in.dict_type = tp;
      in.dict_type_version = tp->tp_version_tag;
    }
    return PyObject_GenericGetDict(obj, nullptr);
  }
  return PyObject_GetAttr(obj, s_dict);
}

namespace {

// Whether getattr(obj, name) on an instance of `tp` is the generic lookup: tp_getattro is
// PyObject_GenericGetAttr, or the __getattr__ hook of a class whose __getattribute__ is object's (the
// hook then runs the generic lookup first, and asks __getattr__ only when that finds nothing).
bool generic_getattr(PyTypeObject* tp) {
  if (tp->tp_getattro == PyObject_GenericGetAttr) {
    return true;
  }
  if (tp->tp_getattro != g_getattr_hook) {
    return false;
  }
  PyObject* ga = _PyType_Lookup(tp, s_getattribute);
  return ga != nullptr && Py_IS_TYPE(ga, &PyWrapperDescr_Type) &&
         reinterpret_cast<PyWrapperDescrObject*>(ga)->d_wrapped == reinterpret_cast<void*>(PyObject_GenericGetAttr);
}

}  // namespace

// getattr(obj, "__dict__") (new reference). When the type's attribute lookup is the generic one and its
// `__dict__` is the generic data descriptor (instance_dict's test), that lookup finds the descriptor and
// returns the instance dict: read it directly (an nn.Module's lookup goes through its __getattr__ hook,
// about 30 ns). Both facts are remembered per type version, as in instance_dict: a class that gains a
// __getattribute__ or a __dict__ gets a new version tag. Otherwise getattr.
PyObject* attr_dict(PyObject* obj, Instr& in) {
  PyTypeObject* tp = Py_TYPE(obj);
  if (tp == in.dict_type && tp->tp_version_tag == in.dict_type_version &&
      (tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
    return PyObject_GenericGetDict(obj, nullptr);
  }
  if (generic_getattr(tp)) {
    return instance_dict(obj, in);  // remembers tp when its __dict__ is the generic one
  }
  return PyObject_GetAttr(obj, s_dict);
}

namespace {

// len(v) == 0 as the C_LEN check computes it: 1 / 0 / -1 (an exception is set).
int is_empty(PyObject* v) {
  PyTypeObject* tp = Py_TYPE(v);
  if (len_is_dict_size(tp)) {
    return PyDict_GET_SIZE(v) == 0;
  }
  if (tp == &PyTuple_Type || tp == &PyList_Type) {
    return Py_SIZE(v) == 0;
  }
  Py_ssize_t n = PyObject_Size(v);
  return n < 0 ? -1 : n == 0;
}

}  // namespace

// C_EMPTYATTRS: every `obj.__dict__[name]` of in.obj is empty (a module's four hook dicts, in one
// instruction instead of a fetch and a length check each). When obj's instance dict is the one that
// passed last, in the same state (its version tag), it still holds the same entries: only their lengths
// are read again, not looked up.
#if LOOM_SPLIT_DICT_LOOKUP
namespace {

// Whether `v` (the table `name` names, just read the slow way) can be read from its slot in split
// dict `d` next time: a dict of an immutable type whose len() is its entry count, found in its slot.
bool remember_empty_slot(Instr& in, PyObject* d, PyObject* name, PyObject* v) {
  if (!fixed_len_is_dict_size(Py_TYPE(v))) {
    return false;
  }
  py313::DictKeys* keys = py313::keys_of(d);
  Py_ssize_t index = py313::split_index(keys, name);
  if (index < 0 || py313::split_value(d, keys, index, name) != v) {
    return false;
  }
  in.dc_slots.push_back(index);
  return true;
}

// C_EMPTYATTRS from the remembered slots of a split dict sharing the remembered keys (any instance of
// the class, on CPython 3.13): 1 all empty, 0 one is not, -1 a slot cannot answer (read the slow way).
int empty_in_split_slots(Instr& in, PyObject* d) {
  auto* keys = static_cast<py313::DictKeys*>(in.dc_keys);
  Py_ssize_t count = PyTuple_GET_SIZE(in.obj);
  if (static_cast<Py_ssize_t>(in.dc_slots.size()) != count) {
    return -1;
  }
  for (Py_ssize_t i = 0; i < count; i++) {
    PyObject* v = py313::split_value(d, keys, in.dc_slots[i], PyTuple_GET_ITEM(in.obj, i));
    if (v == nullptr || !fixed_len_is_dict_size(Py_TYPE(v))) {
      return -1;
    }
    if (PyDict_GET_SIZE(v) != 0) {
      return 0;
    }
  }
  return 1;
}

}  // namespace
#endif

int check_empty_attrs(Instr& in, PyObject* obj) {
  PyObject* d = instance_dict(obj, in);
  if (d == nullptr) {
    return -1;
  }
  Py_ssize_t count = PyTuple_GET_SIZE(in.obj);
  int result = 1;
#if LOOM_DICT_VERSIONS
  if (d == in.dc_dict && dict_version(d) == in.dc_version && static_cast<Py_ssize_t>(in.dc_values.size()) == count) {
    // each entry is a dict of an immutable type whose len() is its entry count (see below)
    for (PyObject* v : in.dc_values) {
      if (PyDict_GET_SIZE(v) != 0) {
        result = 0;
        break;
      }
    }
    Py_DECREF(d);
    return result;
  }
  bool remember = PyDict_CheckExact(d) && version_tracks_contents(d);
#else
  bool remember = false;
#endif
#if LOOM_SPLIT_DICT_LOOKUP
  if (PyDict_CheckExact(d) && in.dc_keys != nullptr) {
    int split = empty_in_split_slots(in, d);
    if (split >= 0) {
      Py_DECREF(d);
      return split;
    }
  }
  bool remember_slots = PyDict_CheckExact(d) && !version_tracks_contents(d);
  in.dc_keys = nullptr;
  in.dc_slots.clear();
#endif
  in.dc_dict = nullptr;
  in.dc_values.clear();
  for (Py_ssize_t i = 0; i < count && result == 1; i++) {
    PyObject* v = item_get(d, PyTuple_GET_ITEM(in.obj, i), nullptr);
    if (v == nullptr) {
      result = -1;
      break;
    }
    // Remembered only for dicts of immutable types (OrderedDict) whose len() is the entry count: no user
    // code runs (a __len__ of its own could change the dict) and the entry's type cannot change.
    remember = remember && fixed_len_is_dict_size(Py_TYPE(v));
    result = is_empty(v);
    if (remember) {
      in.dc_values.push_back(v);  // borrowed: the unmodified dict holds it
    }
#if LOOM_SPLIT_DICT_LOOKUP
    remember_slots = remember_slots && remember_empty_slot(in, d, PyTuple_GET_ITEM(in.obj, i), v);
#endif
    Py_DECREF(v);
  }
#if LOOM_DICT_VERSIONS
  if (result == 1 && remember) {
    in.dc_dict = d;
    in.dc_version = dict_version(d);
  }
#endif
#if LOOM_SPLIT_DICT_LOOKUP
  if (result == 1 && remember_slots && static_cast<Py_ssize_t>(in.dc_slots.size()) == count) {
    in.dc_keys = py313::keys_of(d);
  }
  else {
    in.dc_slots.clear();
  }
#endif
  Py_DECREF(d);
  return result;
}

// The value of free variable `name` (index cache in in.n); new reference or NULL.
// `cells` / `code`: a frame view's closure tuple and code object (or NULL: use `closure_map`).
PyObject* fetch_closure(Instr& in, PyObject* cells, PyObject* code, PyObject* closure_map) {
  PyObject* name = in.obj;
  if (cells != nullptr) {
    if (!PyTuple_Check(cells) || code == nullptr) {
      PyErr_SetString(PyExc_TypeError, "frame view closure is not a tuple of cells with f_code");
      return nullptr;
    }
    PyObject* freevars = PyObject_GetAttr(code, s_co_freevars);
    if (freevars == nullptr) {
      return nullptr;
    }
    if (!PyTuple_Check(freevars)) {
      Py_DECREF(freevars);
      PyErr_SetString(PyExc_TypeError, "co_freevars is not a tuple");
      return nullptr;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(freevars);
    Py_ssize_t idx = in.n;
    bool hit = idx >= 0 && idx < n && PyTuple_GET_ITEM(freevars, idx) == name;
    if (!hit) {
      idx = -1;
      for (Py_ssize_t i = 0; i < n; i++) {
        int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(freevars, i), name, Py_EQ);
        if (eq < 0) {
          Py_DECREF(freevars);
          return nullptr;
        }
        if (eq) {
          idx = i;
          break;
        }
      }
      if (idx >= 0 && PyTuple_GET_ITEM(freevars, idx) == name) {
        in.n = idx;  // self-validating cache: only reused when the name is the same object
      }
    }
    Py_DECREF(freevars);
    if (idx < 0 || idx >= PyTuple_GET_SIZE(cells)) {
      PyErr_SetObject(PyExc_KeyError, name);
      return nullptr;
    }
    return cell_value(PyTuple_GET_ITEM(cells, idx));
  }
  if (closure_map == nullptr) {
    PyErr_SetObject(PyExc_KeyError, name);
    return nullptr;
  }
  PyObject* cell = mapping_get(closure_map, name, nullptr);
  if (cell == nullptr) {
    return nullptr;
  }
  PyObject* v = cell_value(cell);
  Py_DECREF(cell);
  return v;
}

}  // namespace loom_accel
