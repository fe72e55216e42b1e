// The one dlopen loader (see loader_internal.h).
#include "CImagingShims.h"
#include "loader_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

static pthread_mutex_t ck_loader_lock = PTHREAD_MUTEX_INITIALIZER;

static int ck_library_try(ck_library *library, void *handle) {
    unsigned char *table = library->table;
    for (size_t i = 0; i < library->symbol_count; i++) {
        const ck_symbol *symbol = &library->symbols[i];
        void *address = dlsym(handle, symbol->name);
        if (address == NULL && symbol->required) return 0;
        // A data pointer to a function pointer through memcpy, as POSIX
        // allows for dlsym's result.
        memcpy(table + symbol->offset, &address, sizeof address);
    }
    return 1;
}

int ck_library_load(ck_library *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state != 0) return state > 0;
    pthread_mutex_lock(&ck_loader_lock);
    if (library->state == 0) {
        int loaded = 0;
        for (size_t i = 0; i < library->soname_count && !loaded; i++) {
            void *handle = dlopen(library->sonames[i], RTLD_NOW | RTLD_LOCAL);
            if (handle == NULL) continue;
            loaded = ck_library_try(library, handle);
            if (!loaded) {
                memset(library->table, 0, library->table_size);
                dlclose(handle);
            }
        }
        __atomic_store_n(&library->state, loaded ? 1 : -1, __ATOMIC_RELEASE);
    }
    state = library->state;
    pthread_mutex_unlock(&ck_loader_lock);
    return state > 0;
}

// The loader's own check (tests): loads `soname` looking for `required` and
// `optional`, and says what it found: -1 absent or without `required`, else
// 1 + 2 * whether `optional` was found. Each call is a library of its own.
int ck_library_probe(const char *soname, const char *required, const char *optional) {
    struct {
        void *required;
        void *optional;
    } table = {NULL, NULL};
    const char *sonames[] = {soname};
    const ck_symbol symbols[] = {
        {required, offsetof(__typeof__(table), required), 1},
        {optional, offsetof(__typeof__(table), optional), 0},
    };
    ck_library library = {sonames, 1, symbols, 2, &table, sizeof table, 0};
    if (!ck_library_load(&library)) return table.required == NULL && table.optional == NULL ? -1 : -2;
    return 1 + 2 * (table.optional != NULL);
}
