// dict_layout_313.h: the parts of CPython 3.13's dict internals (Include/internal/pycore_dict.h) that
// fetch.cpp reads to look up a str key in a split dict without a hash probe. The internal header
// itself is C-only (and needs Py_BUILD_CORE), so the layouts are restated here, for 3.13 alone.
//
// A split dict (an instance __dict__ sharing its class's keys, values inline in the object) keeps
// its values in an array indexed like the shared keys' entries. Shared keys only ever gain entries:
// a key's index in them never changes, so (keys object, index) found once stays right for every dict
// using those keys, whatever its version tag says (3.13 stores `obj.attr = v` into the inline values
// without a new tag, which is why the tag cannot be trusted for these dicts).
#ifndef LOOM_GUARDS_DICT_LAYOUT_313_H
#define LOOM_GUARDS_DICT_LAYOUT_313_H

#include <Python.h>

#include <cstdint>

#if PY_VERSION_HEX >= 0x030D0000 && PY_VERSION_HEX < 0x030E0000 && !defined(Py_GIL_DISABLED)
#define LOOM_SPLIT_DICT_LOOKUP 1

namespace loom_accel::py313 {

// struct _dictkeysobject, up to its variable part
struct DictKeys {
  Py_ssize_t dk_refcnt;
  uint8_t dk_log2_size;
  uint8_t dk_log2_index_bytes;
  uint8_t dk_kind;
  uint32_t dk_version;
  Py_ssize_t dk_usable;
  Py_ssize_t dk_nentries;
  char dk_indices[];
};

// PyDictUnicodeEntry
struct UnicodeEntry {
  PyObject* me_key;
  PyObject* me_value;  // unused in a split table: the values live in the dict's DictValues
};

// struct _dictvalues
struct DictValues {
  uint8_t capacity;
  uint8_t size;
  uint8_t embedded;
  uint8_t valid;
  PyObject* values[1];
};

constexpr uint8_t kDictKeysSplit = 2;  // DICT_KEYS_SPLIT

inline DictKeys* keys_of(PyObject* d) { return reinterpret_cast<DictKeys*>(reinterpret_cast<PyDictObject*>(d)->ma_keys); }

inline DictValues* values_of(PyObject* d) {
  return reinterpret_cast<DictValues*>(reinterpret_cast<PyDictObject*>(d)->ma_values);
}

inline UnicodeEntry* entries_of(DictKeys* k) {
  return reinterpret_cast<UnicodeEntry*>(k->dk_indices + (static_cast<size_t>(1) << k->dk_log2_index_bytes));
}

// The index of `key` (compared by identity: interned attribute names) among split keys, or -1.
inline Py_ssize_t split_index(DictKeys* k, PyObject* key) {
  if (k->dk_kind != kDictKeysSplit) {
    return -1;
  }
  UnicodeEntry* entries = entries_of(k);
  for (Py_ssize_t i = 0; i < k->dk_nentries; i++) {
    if (entries[i].me_key == key) {
      return i;
    }
  }
  return -1;
}

// values[index] of split dict `d` if it still uses `keys`, `index` is in range and names `key` there,
// and the slot is filled; else NULL (look it up the slow way). Borrowed.
inline PyObject* split_value(PyObject* d, DictKeys* keys, Py_ssize_t index, PyObject* key) {
  DictValues* values = values_of(d);
  if (values == nullptr || keys_of(d) != keys || index >= keys->dk_nentries || index >= values->capacity ||
      entries_of(keys)[index].me_key != key) {
    return nullptr;
  }
  return values->values[index];
}

}  // namespace loom_accel::py313

#else
#define LOOM_SPLIT_DICT_LOOKUP 0
#endif

#endif  // LOOM_GUARDS_DICT_LAYOUT_313_H
