// The one loader of the libraries CropKit opens at run time with dlopen
// (libdeflate, ISA-L, libheif, and the next ones): each library is a table
// of its sonames and the functions CropKit calls, declared by the file that
// calls them; not part of the interface Swift sees.
#ifndef CROPKIT_LOADER_INTERNAL_H
#define CROPKIT_LOADER_INTERNAL_H

#include <stddef.h>

/// One function of a library: its name, where its pointer goes in the
/// library's table of function pointers (offsetof), and whether the library
/// is useless without it.
typedef struct {
    const char *name;
    size_t offset;
    int required;
} ck_symbol;

/// A library loaded at most once: the names to try in order (a versioned
/// soname first, so that an incompatible major version is never opened), the
/// functions to look up, and the table they are written into.
typedef struct {
    const char *const *sonames;
    size_t soname_count;
    const ck_symbol *symbols;
    size_t symbol_count;
    /// The table of function pointers, zeroed until the library loads.
    void *table;
    size_t table_size;
    /// 0 not tried yet, 1 loaded, -1 absent (every soname tried). Written
    /// once, under the loader's lock.
    int state;
} ck_library;

/// Loads `library` on the first call (thread-safe; later calls only read its
/// state): the first soname that opens and has every required function
/// fills the table, optional ones left NULL where missing. A library that
/// opens without a required function is closed with the table cleared,
/// never leaving a pointer into it. Returns 1 when loaded, 0 when absent.
int ck_library_load(ck_library *library);

#endif
