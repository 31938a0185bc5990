/* The datatype engine of pooled files: any MPI datatype flattened into its
 * type map of contiguous byte pieces (cached on the datatype), memory
 * packed and unpacked through a map for any window of the data stream, and
 * file views (disp, etype, filetype) mapped from data-stream ranges to file
 * byte ranges. Self-contained: uses <mpi.h> only, calls the MPI's own
 * PMPI_Type_* (none of them is taken over by mpisw, src/pmpi/calls.def).
 *
 * Conventions. Every function returns MPI_SUCCESS or an MPI error class
 * (MPI_ERR_TYPE, MPI_ERR_ARG, MPI_ERR_NO_MEM, MPI_ERR_INTERN); where a
 * function takes `why` (may be NULL) it writes there a one-line reason for
 * an error, naming the argument and the rule (no "mpisw:" prefix: the
 * caller adds its routine). Byte counts and displacements are MPI_Count
 * (64-bit, signed), so large-count types and negative displacements work.
 * Thread-safe: maps are immutable once built and reference counted. */
#ifndef MPISW_PFILE_TYPEMAP_H
#define MPISW_PFILE_TYPEMAP_H

#include <mpi.h>
#include <stddef.h>

/* One contiguous run of bytes of a type map: disp from the buffer's origin
 * (may be negative), len > 0. */
struct mpisw_typemap_piece {
  MPI_Count disp;
  MPI_Count len;
};

/* A flattened datatype. Pieces are in type-map order (not sorted: a type map
 * may go backwards), adjacent pieces merged; their lengths add up to size.
 * before[i] is the number of data bytes in pieces 0..i-1 (before[n] ==
 * size), for binary search of a stream position. Read-only for callers. */
struct mpisw_typemap {
  MPI_Count size;        /* MPI_Type_size */
  MPI_Count lb, extent;  /* MPI_Type_get_extent */
  MPI_Count true_lb, true_extent;
  MPI_Count n;           /* number of pieces (0 for a type of size 0) */
  const struct mpisw_typemap_piece *piece;
  const MPI_Count *before;
  /* piece[i].disp >= piece[i-1].disp for every i: MPI's "monotonically
   * non-decreasing" rule for filetypes, checked at byte granularity. */
  int monotone;
  /* piece[i].disp >= piece[i-1].disp + piece[i-1].len: increasing and no
   * byte twice (what a view used for writing needs). */
  int disjoint;
  /* one piece as long as the extent: count instances are one run of bytes. */
  int dense;
  /* A struct whose bounds from MPI_Type_get_extent do not even hold the
   * bounds MPI's rule gives from its blocks (Open MPI 4.1.4 ignores blocks
   * without explicit bounds when another has them): the rule's bounds, for
   * a file view to tile by (see mpisw_view_init). 0 when the MPI's hold. */
  int rule_bounds;
  MPI_Count rule_lb, rule_extent;
};

/* Returns the flattened map of `type` in *map, a reference the caller gives
 * back with mpisw_typemap_release. Built once per datatype and cached on it
 * as an attribute (so it goes when the user frees the type, not before the
 * last reference is released; MPI_Type_dup shares it). Predefined types
 * (MPI_INT, MPI_SHORT_INT with its hole, F90 types) are built without cache.
 * Every constructor: dup, contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, hindexed_block, struct, subarray (C and Fortran order),
 * darray (block, cyclic, none, with dargs), resized, and the MPI-4 _c
 * constructors (MPICH 4). Errors: MPI_ERR_TYPE (MPI_DATATYPE_NULL, a
 * combiner the engine does not know, a map that disagrees with
 * MPI_Type_size), MPI_ERR_NO_MEM (the map does not fit: more than
 * MPISW_TYPEMAP_MAX_PIECES pieces, or malloc failed). */
int mpisw_typemap_get(MPI_Datatype type, struct mpisw_typemap **map, char *why, size_t whylen);
/* Gives back a reference from mpisw_typemap_get (or _view_init's); NULL is
 * ignored. */
void mpisw_typemap_release(struct mpisw_typemap *map);
#define MPISW_TYPEMAP_MAX_PIECES ((MPI_Count)1 << 27)

/* Memory side. The data stream of `count` instances of a type at `buf` is
 * their bytes in type-map order, instance after instance (instance k at
 * buf + k * extent): count * size bytes, exactly what MPI_Pack writes.
 * mpisw_typemap_pack copies stream bytes [pos, pos + len) to out;
 * mpisw_typemap_unpack copies len bytes from in to stream bytes [pos, pos +
 * len). No allocation; O(log n) to find pos, then O(pieces touched).
 * buf may be MPI_BOTTOM for types of absolute addresses. Errors:
 * MPI_ERR_ARG (count, pos or len negative, or pos + len > count * size). */
int mpisw_typemap_pack(const struct mpisw_typemap *map, const void *buf, MPI_Count count,
                       MPI_Count pos, MPI_Count len, void *out);
int mpisw_typemap_unpack(const struct mpisw_typemap *map, const void *in, MPI_Count pos,
                         MPI_Count len, void *buf, MPI_Count count);

/* Memory pieces of a stream window, for callers that move data straight
 * from the user's buffer (no packing): fn(ctx, addr, data_off, len) once per
 * contiguous run, in stream order, where addr = buf + displacement and
 * data_off counts from pos. A nonzero return of fn stops the walk and is
 * returned. Errors as mpisw_typemap_pack. */
typedef int (*mpisw_typemap_mem_fn)(void *ctx, void *addr, MPI_Count data_off, MPI_Count len);
int mpisw_typemap_walk(const struct mpisw_typemap *map, const void *buf, MPI_Count count,
                       MPI_Count pos, MPI_Count len, mpisw_typemap_mem_fn fn, void *ctx);

/* File side. A view as MPI_File_set_view defines it: the filetype tiles the
 * file from disp, copy k at disp + k * filetype extent; the data stream is
 * the filetype's data bytes in type-map order, copy after copy. Positions
 * in the stream are bytes (the caller multiplies etype offsets by esize). */
struct mpisw_view {
  MPI_Offset disp;
  MPI_Count esize;               /* size of the etype */
  struct mpisw_typemap *ftype;   /* the filetype's map (a reference) */
  MPI_Count extent;              /* step between copies of the filetype */
  int writable;                  /* checked for writing (no overlap) */
};

/* Checks a view against the rules of MPI_File_set_view and fills *v (with a
 * reference to the filetype's map; free with mpisw_view_free). `writing`:
 * the file is open for writing (MPI_MODE_RDONLY not set), so neither etype
 * nor filetype may hold a byte twice. MPI_DISPLACEMENT_CURRENT is the
 * caller's to resolve before. Errors (reason in why):
 *  MPI_ERR_ARG  disp negative; filetype size not a multiple of etype size;
 *  MPI_ERR_TYPE etype or filetype MPI_DATATYPE_NULL; etype of size 0;
 *               filetype not built from etype (an etype instance split
 *               across non-adjacent bytes or shaped unlike the etype);
 *               filetype displacements negative or not monotonically
 *               non-decreasing; overlap in etype or filetype (writing);
 *               filetype of data but extent <= 0; copies of the filetype
 *               overlapping each other (extent smaller than the data's
 *               span, writing);
 *  MPI_ERR_NO_MEM, and the errors of mpisw_typemap_get. */
int mpisw_view_init(struct mpisw_view *v, MPI_Offset disp, MPI_Datatype etype,
                    MPI_Datatype filetype, int writing, char *why, size_t whylen);
/* Releases the view's map; *v may be all zero. */
void mpisw_view_free(struct mpisw_view *v);

/* Pull iterator over the file pieces of stream range [pos, pos + len):
 * each step gives file_off (absolute byte offset in the file), data_off
 * (offset in the caller's data, 0 = the byte at pos) and len, in stream
 * order, pieces adjacent in the file merged (a dense filetype gives one
 * piece for any range). Starting costs O(log pieces), each step O(1). */
struct mpisw_view_iter {
  const struct mpisw_view *v;
  MPI_Count tile;     /* filetype copy */
  MPI_Count i;        /* piece in the copy */
  MPI_Count skip;     /* bytes of that piece already given */
  MPI_Count done, len;
};
/* Errors: MPI_ERR_ARG (pos or len negative; len > 0 with a filetype of
 * size 0, whose stream is empty). */
int mpisw_view_iter_start(struct mpisw_view_iter *it, const struct mpisw_view *v, MPI_Count pos,
                          MPI_Count len);
/* Returns 1 and fills the next piece, or 0 when the range is done. */
int mpisw_view_iter_next(struct mpisw_view_iter *it, MPI_Offset *file_off, MPI_Count *data_off,
                         MPI_Count *len);
/* The same as a callback: fn(ctx, file_off, data_off, len) per piece; a
 * nonzero return of fn stops and is returned; else errors of _iter_start. */
typedef int (*mpisw_view_piece_fn)(void *ctx, MPI_Offset file_off, MPI_Count data_off,
                                   MPI_Count len);
int mpisw_view_map(const struct mpisw_view *v, MPI_Count pos, MPI_Count len,
                   mpisw_view_piece_fn fn, void *ctx);

/* MPI_File_get_byte_offset: the absolute file offset of stream byte pos
 * (pass offset * esize). Errors: MPI_ERR_ARG (pos negative, or a filetype
 * of size 0 and pos > 0). For pos 0 of an empty filetype: disp. */
int mpisw_view_byte_offset(const struct mpisw_view *v, MPI_Count pos, MPI_Offset *off);

/* The inverse, for MPI_SEEK_END and reads at the end of file: the number
 * of stream bytes whose file offset is below file_off (so a file of
 * file_off bytes holds stream [0, *pos)). Exact for views checked for
 * writing; with overlapping copies it counts the bytes below file_off.
 * Errors: MPI_ERR_ARG (file_off negative). */
int mpisw_view_stream_pos(const struct mpisw_view *v, MPI_Offset file_off, MPI_Count *pos);

#endif
