/* SPDX-License-Identifier: MIT */
/*
 * The constants the engine and its generator share, defined once: field types
 * with their manifest names and wire sizes, the C storage of a member, template
 * flags and the bits packed into a descriptor's wire sizes. Included by
 * gcev_schema_desc.h (the engine) and by tools/gcev-gen, which is built before
 * any generated header exists: so this header includes nothing and declares
 * only macros and enums.
 */
#ifndef GCEV_SCHEMA_CONSTS_H
#define GCEV_SCHEMA_CONSTS_H

/*
 * X(NAME, manifest name, wire bytes with 4-byte pointers, with 8-byte pointers,
 *   alignment in a C-aligned element with 4- / 8-byte pointers),
 * in the order of gcev_type (gcev.h: GCEV_T_<NAME>; checked in gcev_schema.c).
 * Wire size 0: variable (strings, blobs) or composite (struct).
 */
#define GCEV_TYPE_LIST(X)                                                                                    \
    X(INT8, "win:Int8", 1, 1, 1, 1)                                                                          \
    X(UINT8, "win:UInt8", 1, 1, 1, 1)                                                                        \
    X(INT16, "win:Int16", 2, 2, 2, 2)                                                                        \
    X(UINT16, "win:UInt16", 2, 2, 2, 2)                                                                      \
    X(INT32, "win:Int32", 4, 4, 4, 4)                                                                        \
    X(UINT32, "win:UInt32", 4, 4, 4, 4)                                                                      \
    X(INT64, "win:Int64", 8, 8, 8, 8)                                                                        \
    X(UINT64, "win:UInt64", 8, 8, 8, 8)                                                                      \
    X(FLOAT, "win:Float", 4, 4, 4, 4)                                                                        \
    X(DOUBLE, "win:Double", 8, 8, 8, 8)                                                                      \
    X(BOOLEAN, "win:Boolean", 4, 4, 4, 4)                                                                    \
    X(POINTER, "win:Pointer", 4, 8, 4, 8)                                                                    \
    X(GUID, "win:GUID", 16, 16, 4, 4) /* a struct of uint32/uint16/bytes */                                  \
    X(FILETIME, "win:FILETIME", 8, 8, 8, 8)                                                                  \
    X(SYSTEMTIME, "win:SYSTEMTIME", 16, 16, 2, 2) /* eight WORDs */                                          \
    X(UNICODE_STRING, "win:UnicodeString", 0, 0, 1, 1)                                                       \
    X(ANSI_STRING, "win:AnsiString", 0, 0, 1, 1)                                                             \
    X(BINARY, "win:Binary", 0, 0, 1, 1)                                                                      \
    X(STRUCT, "struct", 0, 0, 1, 1)

/* How a field is held in its C struct: X(NAME, C type of the member). */
#define GCEV_STORE_LIST(X)                                                                                   \
    X(U8, uint8_t)                                                                                           \
    X(U16, uint16_t)                                                                                         \
    X(U32, uint32_t)                                                                                         \
    X(U64, uint64_t)                                                                                         \
    X(I8, int8_t)                                                                                            \
    X(I16, int16_t)                                                                                          \
    X(I32, int32_t)                                                                                          \
    X(I64, int64_t)                                                                                          \
    X(F32, float)                                                                                            \
    X(F64, double)                                                                                           \
    X(GUID, gcev_guid)                                                                                       \
    X(UTF16, gcev_utf16)                                                                                     \
    X(BYTES, gcev_bytes)                                                                                     \
    X(ARRAY, gcev_array)

typedef enum gcev_store {
#define GCEV_STORE_ENUM_(name, ctype) GCEV_S_##name,
    GCEV_STORE_LIST(GCEV_STORE_ENUM_)
#undef GCEV_STORE_ENUM_
        GCEV_STORE_COUNT_
} gcev_store;

/* Template flags (gcev_template.flags). */
enum {
    GCEV_TF_FIXED = 1u << 0,         /* only fixed-size scalar fields (no SYSTEMTIME) */
    GCEV_TF_STRUCT_ARRAYS = 1u << 1, /* has <struct> arrays (quirks may apply) */
    GCEV_TF_COVERS_STRUCT = 1u << 2, /* writes every member of its C struct in full
                                        (with 8-byte pointers) */
    GCEV_TF_POINTERS = 1u << 3       /* has win:Pointer fields */
};

/* Or'ed into gcev_field_desc.wire[] when a narrower signed value must be
 * sign-extended into a wider member; the low bits are the wire size. */
enum { GCEV_WIRE_WIDEN_SIGNED = 0x80 };

/* outType hints kept from the manifest (formatting only). */
enum { GCEV_OUT_DEFAULT = 0, GCEV_OUT_HEX = 1 };

#endif
