// JPEG writing through libjpeg-turbo: encoding pixels, and cropping in the
// DCT domain (coefficients copied, never re-encoded, but for edge blocks
// that would carry pixels from outside the rect).
#include "jpeg_internal.h"

#include <unistd.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

// MARK: - Output

enum { ck_jpeg_output_size = 1 << 16 };

typedef struct {
    struct jpeg_destination_mgr manager;
    ck_write_fn write;
    void *context;
    JOCTET *buffer;
    int failed;
} ck_jpeg_destination;

static void ck_destination_init(j_compress_ptr cinfo) {
    ck_jpeg_destination *destination = (ck_jpeg_destination *)cinfo->dest;
    destination->manager.next_output_byte = destination->buffer;
    destination->manager.free_in_buffer = ck_jpeg_output_size;
}

static boolean ck_destination_empty(j_compress_ptr cinfo) {
    ck_jpeg_destination *destination = (ck_jpeg_destination *)cinfo->dest;
    if (destination->write(destination->context, destination->buffer, ck_jpeg_output_size) != 0) {
        destination->failed = 1;
        ERREXIT(cinfo, JERR_FILE_WRITE);
    }
    destination->manager.next_output_byte = destination->buffer;
    destination->manager.free_in_buffer = ck_jpeg_output_size;
    return TRUE;
}

static void ck_destination_term(j_compress_ptr cinfo) {
    ck_jpeg_destination *destination = (ck_jpeg_destination *)cinfo->dest;
    size_t count = ck_jpeg_output_size - destination->manager.free_in_buffer;
    if (count > 0 && destination->write(destination->context, destination->buffer, count) != 0) {
        destination->failed = 1;
        ERREXIT(cinfo, JERR_FILE_WRITE);
    }
}

static void ck_jpeg_use_output(j_compress_ptr cinfo, ck_write_fn write, void *context) {
    ck_jpeg_destination *destination = (ck_jpeg_destination *)(*cinfo->mem->alloc_small)(
        (j_common_ptr)cinfo, JPOOL_PERMANENT, sizeof(ck_jpeg_destination));
    destination->buffer =
        (JOCTET *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_PERMANENT, ck_jpeg_output_size);
    destination->write = write;
    destination->context = context;
    destination->failed = 0;
    destination->manager.init_destination = ck_destination_init;
    destination->manager.empty_output_buffer = ck_destination_empty;
    destination->manager.term_destination = ck_destination_term;
    cinfo->dest = &destination->manager;
}

static int ck_jpeg_output_failed(j_compress_ptr cinfo) {
    return cinfo->dest != NULL && ((ck_jpeg_destination *)cinfo->dest)->failed;
}

/// Writes each whole segment of `markers` (FF, marker, length, body).
static void ck_jpeg_write_markers(j_compress_ptr cinfo, const uint8_t *markers, size_t size) {
    size_t at = 0;
    while (at + 4 <= size) {
        int marker = markers[at + 1];
        size_t length = ((size_t)markers[at + 2] << 8) | markers[at + 3];
        if (markers[at] != 0xFF || length < 2 || at + 2 + length > size) break;
        jpeg_write_marker(cinfo, marker, markers + at + 4, (unsigned int)(length - 2));
        at += 2 + length;
    }
}

/// The coding choices that do not depend on where the coefficients come from.
static void ck_jpeg_apply_coding(j_compress_ptr cinfo, const ck_jpeg_coding *coding) {
    cinfo->arith_code = coding->arithmetic ? TRUE : FALSE;
    cinfo->optimize_coding = (!coding->arithmetic && coding->optimize) ? TRUE : FALSE;
    cinfo->restart_interval = (unsigned int)coding->restart_interval;
    if (coding->progressive) jpeg_simple_progression(cinfo);
}

// MARK: - Encoding pixels

int ck_jpeg_encode(ck_jpeg_encode_request *request) {
    request->warnings = 0;
    request->message[0] = '\0';
    struct jpeg_compress_struct cinfo;
    ck_jpeg_error error;
    ck_jpeg_install_errors((j_common_ptr)&cinfo, &error, request->message, sizeof request->message,
                           &request->warnings, 1);
    if (setjmp(error.jump)) {
        int failed = ck_jpeg_output_failed(&cinfo);
        jpeg_destroy_compress(&cinfo);
        return failed ? CK_STATUS_CANNOT_OPEN : ck_jpeg_failure(&error, CK_STATUS_CORRUPT);
    }
    jpeg_create_compress(&cinfo);
    ck_jpeg_use_output(&cinfo, request->write, request->write_context);
    cinfo.image_width = request->width;
    cinfo.image_height = request->height;
    cinfo.input_components = request->components;
    cinfo.in_color_space = request->components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.write_JFIF_header = request->write_jfif ? TRUE : FALSE;
    const ck_jpeg_coding *coding = &request->coding;
    if (coding->quant_table_count > 0) {
        for (int table = 0; table < coding->quant_table_count && table < NUM_QUANT_TBLS; table++) {
            unsigned int values[DCTSIZE2];
            for (int i = 0; i < DCTSIZE2; i++) values[i] = coding->quant_tables[table][i];
            jpeg_add_quant_table(&cinfo, table, values, 100, FALSE);
        }
    } else {
        jpeg_set_quality(&cinfo, coding->quality > 0 ? coding->quality : 90, TRUE);
    }
    for (int ci = 0; ci < cinfo.num_components && ci < 4; ci++) {
        jpeg_component_info *component = &cinfo.comp_info[ci];
        component->h_samp_factor = coding->h_samp[ci] > 0 ? coding->h_samp[ci] : 1;
        component->v_samp_factor = coding->v_samp[ci] > 0 ? coding->v_samp[ci] : 1;
        if (coding->quant_table_count > 0) component->quant_tbl_no = coding->component_quant[ci];
    }
    ck_jpeg_apply_coding(&cinfo, coding);
    jpeg_start_compress(&cinfo, TRUE);
    ck_jpeg_write_markers(&cinfo, request->markers, request->markers_size);
    size_t stride = (size_t)request->width * (size_t)request->components;
    while (cinfo.next_scanline < cinfo.image_height) {
        if (request->wait_rows && request->wait_rows(request->wait_context, cinfo.next_scanline + 1) != 0) {
            snprintf(request->message, sizeof request->message, "the decode ended before the crop's last row");
            longjmp(error.jump, 1);
        }
        size_t slot = request->ring_rows ? cinfo.next_scanline % request->ring_rows : cinfo.next_scanline;
        JSAMPROW row = (JSAMPROW)(request->pixels + slot * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return CK_STATUS_OK;
}

// MARK: - Cropping in the DCT domain

/// A source coefficient array that holds only the last two iMCU rows: a
/// single-scan decode writes each row once and the crop's blocks are copied
/// out of it before the row after next, so the photo's coefficients never
/// all sit in memory (nor fault in page by page) - time and memory follow the
/// crop, not the photo.
typedef struct {
    JBLOCKROW storage;
    JDIMENSION blocks_per_row;
    JDIMENSION ring_rows;
    JBLOCKROW window[MAX_SAMP_FACTOR];
} ck_ring_barray;

/// What the transcode's hooks need, reached through cinfo->client_data.
typedef struct {
    ck_jpeg_transcode_request *request;
    /// The original request_virt_barray, and the arrays it made for the
    /// coefficient controller (in request order: one per component).
    jvirt_barray_ptr (*request_virt_barray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    jvirt_barray_ptr captured[MAX_COMPONENTS];
    int capturing;
    /// Whether the coefficient arrays are two-row rings (a sequential file
    /// whose one scan holds every component), and the rings.
    int use_rings;
    ck_ring_barray *rings[MAX_COMPONENTS];
    int ring_count;
    JBLOCKARRAY (*access_virt_barray)(j_common_ptr, jvirt_barray_ptr, JDIMENSION, JDIMENSION, boolean);
    int captured_count;
    /// The last iMCU row the crop needs, or -1 to read every row.
    long last_imcu_row;
    /// The crop's first iMCU row.
    long first_imcu_row;
    /// The crop's own arrays, and the iMCU rows of the source copied into
    /// them so far (a sequential decode copies each row as it completes).
    jvirt_barray_ptr *crop_arrays;
    long copied_imcu_rows;
    /// Whether the crop's blocks are already in its arrays (CropKit's own
    /// entropy decoder put them there): only the edge blocks are fixed.
    int in_place;
} ck_transcode_state;

static void ck_fix_block(JCOEFPTR block, const JQUANT_TBL *table, int columns, int rows);

/// Where component `ci`'s part of the crop lies in the source: its first
/// block column, and the samples across and down the crop covers in it.
typedef struct {
    JDIMENSION x_blocks;
    uint64_t columns, samples_down;
} ck_component_crop;

static ck_component_crop ck_component_crop_of(j_decompress_ptr cinfo, const ck_jpeg_crop_params *crop, int ci) {
    jpeg_component_info *component = &cinfo->comp_info[ci];
    ck_component_crop place;
    place.x_blocks = crop->crop_x / (uint32_t)(8 * cinfo->max_h_samp_factor) * (JDIMENSION)component->h_samp_factor;
    place.columns = ((uint64_t)crop->crop_width * component->h_samp_factor + (uint64_t)cinfo->max_h_samp_factor - 1) /
                    (uint64_t)cinfo->max_h_samp_factor;
    place.samples_down =
        ((uint64_t)crop->crop_height * component->v_samp_factor + (uint64_t)cinfo->max_v_samp_factor - 1) /
        (uint64_t)cinfo->max_v_samp_factor;
    return place;
}

/// Copies the crop's blocks of the source's iMCU rows up to `rows` (not
/// included) into the crop's arrays, re-encoding the edge blocks that hold
/// samples beyond the rect. Returns 0, or -1 when an edge block would need
/// re-encoding and the request forbids it.
static int ck_copy_crop_rows(j_decompress_ptr cinfo, ck_transcode_state *state, long rows) {
    ck_jpeg_transcode_request *request = state->request;
    long first = state->first_imcu_row;
    if (rows > state->last_imcu_row + 1) rows = state->last_imcu_row + 1;
    if (rows <= state->copied_imcu_rows || rows <= first) return 0;
    int right_inside = request->source.crop_x + request->source.crop_width < cinfo->image_width;
    int bottom_inside = request->source.crop_y + request->source.crop_height < cinfo->image_height;
    long from = state->copied_imcu_rows > first ? state->copied_imcu_rows : first;
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        jpeg_component_info *component = &cinfo->comp_info[ci];
        int v = component->v_samp_factor;
        ck_component_crop place = ck_component_crop_of(cinfo, &request->source, ci);
        JDIMENSION x_blocks = place.x_blocks;
        uint64_t columns = place.columns, samples_down = place.samples_down;
        JDIMENSION width_blocks = (JDIMENSION)((columns + 7) / 8);
        JDIMENSION height_blocks = (JDIMENSION)((samples_down + 7) / 8);
        int last_columns = (int)(columns - 8 * (uint64_t)(width_blocks - 1));
        int last_rows = (int)(samples_down - 8 * (uint64_t)(height_blocks - 1));
        // fix_edges 2 is the tests' control: copy the edge blocks as they
        // are, padding and all, to show what the padding would leak.
        int fix_right = request->fix_edges != 2 && right_inside && last_columns < 8;
        int fix_bottom = request->fix_edges != 2 && bottom_inside && last_rows < 8;
        if ((fix_right || fix_bottom) && !request->fix_edges) return -1;
        JDIMENSION count = width_blocks;
        if (x_blocks + count > component->width_in_blocks) count = component->width_in_blocks - x_blocks;
        for (long source_row = from * v; source_row < rows * v; source_row++) {
            long row = source_row - first * v;
            if (row >= (long)height_blocks) break;
            if (state->in_place && !fix_right && !fix_bottom) break;
            JBLOCKARRAY to = NULL;
            if (!state->in_place) {
                JBLOCKARRAY from_row = (*cinfo->mem->access_virt_barray)(
                    (j_common_ptr)cinfo, state->captured[ci], (JDIMENSION)source_row, 1, FALSE);
                to = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, state->crop_arrays[ci], (JDIMENSION)row, 1,
                                                       TRUE);
                memcpy(to[0], from_row[0] + x_blocks, sizeof(JBLOCK) * count);
            }
            int edge_row = fix_bottom && row == (long)height_blocks - 1;
            if (!edge_row && !fix_right) continue;
            if (to == NULL) {
                to = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, state->crop_arrays[ci], (JDIMENSION)row, 1,
                                                       TRUE);
            }
            for (JDIMENSION block = 0; block < width_blocks; block++) {
                int edge_column = fix_right && block == width_blocks - 1;
                if (!edge_row && !edge_column) continue;
                ck_fix_block(to[0][block], component->quant_table, edge_column ? last_columns : 8,
                             edge_row ? last_rows : 8);
                request->reencoded_blocks += 1;
            }
        }
    }
    state->copied_imcu_rows = rows;
    return 0;
}

static JBLOCKARRAY ck_access_barray(j_common_ptr cinfo, jvirt_barray_ptr array, JDIMENSION start_row,
                                    JDIMENSION num_rows, boolean writable) {
    ck_transcode_state *state = (ck_transcode_state *)cinfo->client_data;
    for (int ci = 0; ci < state->ring_count; ci++) {
        ck_ring_barray *ring = state->rings[ci];
        if ((jvirt_barray_ptr)ring != array) continue;
        if (num_rows > MAX_SAMP_FACTOR || num_rows > ring->ring_rows) ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
        for (JDIMENSION i = 0; i < num_rows; i++) {
            JBLOCKROW row = ring->storage + (size_t)((start_row + i) % ring->ring_rows) * ring->blocks_per_row;
            // The entropy decoder writes only the nonzero coefficients.
            if (writable) memset(row, 0, sizeof(JBLOCK) * (size_t)ring->blocks_per_row);
            ring->window[i] = row;
        }
        return ring->window;
    }
    return state->access_virt_barray(cinfo, array, start_row, num_rows, writable);
}

static jvirt_barray_ptr ck_capture_barray(j_common_ptr cinfo, int pool, boolean pre_zero, JDIMENSION width,
                                          JDIMENSION height, JDIMENSION access_rows) {
    ck_transcode_state *state = (ck_transcode_state *)cinfo->client_data;
    if (state->capturing && state->use_rings && state->captured_count < MAX_COMPONENTS &&
        access_rows <= MAX_SAMP_FACTOR) {
        ck_ring_barray *ring =
            (ck_ring_barray *)(*cinfo->mem->alloc_small)(cinfo, JPOOL_IMAGE, sizeof(ck_ring_barray));
        ring->blocks_per_row = width;
        ring->ring_rows = 2 * access_rows;
        ring->storage = (JBLOCKROW)(*cinfo->mem->alloc_large)(cinfo, JPOOL_IMAGE,
                                                               sizeof(JBLOCK) * (size_t)width * ring->ring_rows);
        state->rings[state->ring_count++] = ring;
        state->captured[state->captured_count++] = (jvirt_barray_ptr)ring;
        return (jvirt_barray_ptr)ring;
    }
    jvirt_barray_ptr array = state->request_virt_barray(cinfo, pool, pre_zero, width, height, access_rows);
    if (state->capturing && state->captured_count < MAX_COMPONENTS) {
        state->captured[state->captured_count++] = array;
    }
    return array;
}

static void ck_transcode_progress(j_common_ptr cinfo) {
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    ck_transcode_state *state = (ck_transcode_state *)cinfo->client_data;
    ck_jpeg_transcode_request *request = state->request;
    if (decompress->input_scan_number > request->scans) request->scans = decompress->input_scan_number;
    if (decompress->progressive_mode && decompress->input_scan_number > request->source.max_scans) {
        snprintf(request->message, sizeof request->message, "progressive JPEG has more than %d scans",
                 request->source.max_scans);
        longjmp(((ck_jpeg_error *)cinfo->err)->jump, 2);
    }
    if (state->last_imcu_row >= 0 && !decompress->progressive_mode &&
        decompress->comps_in_scan == decompress->num_components &&
        state->captured_count == decompress->num_components) {
        if (ck_copy_crop_rows(decompress, state, (long)decompress->input_iMCU_row) != 0) {
            snprintf(request->message, sizeof request->message,
                     "the crop's right or bottom edge cuts a block that holds pixels beyond it");
            longjmp(((ck_jpeg_error *)cinfo->err)->jump, 4);
        }
    }
    // One interleaved scan holds every component: the rows below the crop's
    // last iMCU row are never needed, so the decode stops there.
    if (state->last_imcu_row >= 0 && !decompress->progressive_mode &&
        decompress->comps_in_scan == decompress->num_components &&
        (long)decompress->input_iMCU_row > state->last_imcu_row &&
        state->last_imcu_row + 1 < (long)decompress->total_iMCU_rows &&
        state->captured_count == decompress->num_components) {
        request->stopped_early = 1;
        longjmp(((ck_jpeg_error *)cinfo->err)->jump, 3);
    }
}

/// The orthonormal 8-point DCT basis: basis[u][x] = C(u)/2 cos((2x+1)uπ/16).
static void ck_dct_basis(double basis[8][8]) {
    for (int u = 0; u < 8; u++) {
        double scale = u == 0 ? sqrt(0.125) : 0.5;
        for (int x = 0; x < 8; x++) basis[u][x] = scale * cos((2 * x + 1) * u * M_PI / 16.0);
    }
}

/// Re-encodes one block whose samples from `columns` on (and rows from
/// `rows` on) lie outside the rect: decoded, those samples replaced by the
/// last ones inside, coded again with the same quantization table.
static void ck_fix_block(JCOEFPTR block, const JQUANT_TBL *table, int columns, int rows) {
    double basis[8][8];
    ck_dct_basis(basis);
    double coefficients[8][8], samples[8][8], temp[8][8];
    for (int v = 0; v < 8; v++)
        for (int u = 0; u < 8; u++) coefficients[v][u] = (double)block[v * 8 + u] * table->quantval[v * 8 + u];
    // Inverse: samples = B^T · F · B, plus the level shift, clamped and
    // rounded as a decoder's output would be.
    for (int v = 0; v < 8; v++)
        for (int x = 0; x < 8; x++) {
            double sum = 0;
            for (int u = 0; u < 8; u++) sum += coefficients[v][u] * basis[u][x];
            temp[v][x] = sum;
        }
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            double sum = 0;
            for (int v = 0; v < 8; v++) sum += basis[v][y] * temp[v][x];
            double value = floor(sum + 128.0 + 0.5);
            samples[y][x] = value < 0 ? 0 : (value > 255 ? 255 : value);
        }
    for (int y = 0; y < 8; y++)
        for (int x = columns; x < 8; x++) samples[y][x] = samples[y][columns - 1];
    for (int y = rows; y < 8; y++)
        for (int x = 0; x < 8; x++) samples[y][x] = samples[rows - 1][x];
    // Forward: F = B · (s − 128) · B^T, quantized with rounding.
    for (int y = 0; y < 8; y++)
        for (int u = 0; u < 8; u++) {
            double sum = 0;
            for (int x = 0; x < 8; x++) sum += (samples[y][x] - 128.0) * basis[u][x];
            temp[y][u] = sum;
        }
    for (int v = 0; v < 8; v++)
        for (int u = 0; u < 8; u++) {
            double sum = 0;
            for (int y = 0; y < 8; y++) sum += basis[v][y] * temp[y][u];
            double quantized = sum / table->quantval[v * 8 + u];
            block[v * 8 + u] = (JCOEF)(quantized < 0 ? -floor(-quantized + 0.5) : floor(quantized + 0.5));
        }
}

/// Decodes the crop's blocks with CropKit's own entropy decoder into
/// `crop_arrays` (realizing them): 0 when it did, -1 when the file is not
/// one it decodes (a progressive, arithmetic, 12-bit or multi-scan file, or
/// data not as it expects).
static int ck_decode_own(j_decompress_ptr cinfo, const ck_input *input, ck_jpeg_transcode_request *request,
                         ck_transcode_state *state, jvirt_barray_ptr *crop_arrays) {
    if (cinfo->progressive_mode || cinfo->arith_code || cinfo->data_precision != 8 || cinfo->num_components > 4 ||
        cinfo->comps_in_scan != cinfo->num_components) {
        return -1;
    }
    // Without restart intervals libjpeg-turbo decodes as fast as CropKit's
    // serial decoder (which measured 0.95x its speed): its own is used
    // there only with a second core to decode speculatively on (or when
    // the request asks for it: the tests' and the fuzz target's controls).
    long cores = ck_usable_cores();
    int mode = request->entropy_mode;
    if (cinfo->restart_interval == 0 && mode == 0 && cores < 2) return -1;
    if (cinfo->num_components == 1 &&
        (cinfo->comp_info[0].h_samp_factor != 1 || cinfo->comp_info[0].v_samp_factor != 1)) {
        return -1;
    }
    int blocks = 0;
    ck_jpeg_entropy_crop crop;
    memset(&crop, 0, sizeof crop);
    crop.first_imcu_row = state->first_imcu_row;
    crop.last_imcu_row = state->last_imcu_row;
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        jpeg_component_info *component = &cinfo->comp_info[ci];
        blocks += component->h_samp_factor * component->v_samp_factor;
        // As ck_copy_crop_rows places them.
        ck_component_crop place = ck_component_crop_of(cinfo, &request->source, ci);
        crop.x_blocks[ci] = place.x_blocks;
        JDIMENSION count = (JDIMENSION)((place.columns + 7) / 8);
        if (crop.x_blocks[ci] + count > component->width_in_blocks) count = component->width_in_blocks - crop.x_blocks[ci];
        crop.count[ci] = count;
        crop.height_blocks[ci] = (JDIMENSION)((place.samples_down + 7) / 8);
        crop.array_rows[ci] = (JDIMENSION)(state->last_imcu_row + 1 - state->first_imcu_row) *
                              (JDIMENSION)component->v_samp_factor;
    }
    if (blocks > 10) return -1;
    // The quantization tables each component uses, as libjpeg latches them
    // when it starts a scan (the edge blocks are re-encoded with them).
    for (int ci = 0; ci < cinfo->num_components; ci++) {
        jpeg_component_info *component = &cinfo->comp_info[ci];
        int slot = component->quant_tbl_no;
        if (slot < 0 || slot >= NUM_QUANT_TBLS || cinfo->quant_tbl_ptrs[slot] == NULL) return -1;
        if (component->quant_table == NULL) {
            JQUANT_TBL *table =
                (JQUANT_TBL *)(*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_IMAGE, sizeof(JQUANT_TBL));
            memcpy(table, cinfo->quant_tbl_ptrs[slot], sizeof(JQUANT_TBL));
            component->quant_table = table;
        }
    }
    crop.ends_image = state->last_imcu_row + 1 >= (long)cinfo->total_iMCU_rows;
    crop.threads = cores >= 2 || mode == 3 ? 2 : 1;
    crop.speculate = mode == 0 || mode == 3;
    crop.serial = mode == 2 || mode == 3;
    crop.split_permille = mode == 3 ? request->split_permille : 0;
    (*cinfo->mem->realize_virt_arrays)((j_common_ptr)cinfo);
    int path = ck_jpeg_entropy_decode(cinfo, ck_jpeg_input_offset(cinfo), input, &crop, crop_arrays);
    if (path == 0) return -1;
    request->entropy = path;
    request->stopped_early = state->last_imcu_row + 1 < (long)cinfo->total_iMCU_rows;
    state->in_place = 1;
    return 0;
}

/// The crop with CropKit's own entropy decoder when `own` (returning
/// ck_fall_back when the file is not one it decodes, nothing written), else
/// with libjpeg-turbo's.
enum { ck_fall_back = -1 };
static int ck_jpeg_transcode(const ck_input *input, ck_jpeg_transcode_request *request, int own) {
    request->entropy = 0;
    request->encoder = 0;
    request->warnings = 0;
    request->scans = 0;
    request->reencoded_blocks = 0;
    request->stopped_early = 0;
    request->message[0] = '\0';
    struct jpeg_decompress_struct source;
    struct jpeg_compress_struct output;
    ck_jpeg_error error;
    ck_transcode_state state;
    memset(&state, 0, sizeof state);
    state.request = request;
    state.last_imcu_row = -1;
    volatile int output_made = 0;
    volatile int status = CK_STATUS_CORRUPT;
    jvirt_barray_ptr *volatile crop_arrays = NULL;
    ck_jpeg_install_errors((j_common_ptr)&source, &error, request->message, sizeof request->message,
                           &request->warnings, request->source.lenient);
    int jumped = setjmp(error.jump);
    if (jumped == 4) status = CK_STATUS_MISMATCH;
    if (jumped == 1 || jumped == 2 || jumped == 4) {
        int failed = output_made && ck_jpeg_output_failed(&output);
        if (output_made) jpeg_destroy_compress(&output);
        jpeg_destroy_decompress(&source);
        if (jumped == 2) return CK_STATUS_LIMIT;
        return failed ? CK_STATUS_CANNOT_OPEN : ck_jpeg_failure(&error, status);
    }
    if (jumped == 0) {
        jpeg_create_decompress(&source);
        source.mem->max_memory_to_use = request->source.max_memory;
        source.client_data = &state;
        ck_jpeg_use_input(&source, input);
        jpeg_read_header(&source, TRUE);
        if (source.image_width != request->source.width || source.image_height != request->source.height ||
            source.num_components != request->source.components) {
            status = CK_STATUS_MISMATCH;
            snprintf(request->message, sizeof request->message,
                     "libjpeg read a different frame header than the scan");
            longjmp(error.jump, 1);
        }
        int imcu_width = 8 * source.max_h_samp_factor;
        int imcu_height = 8 * source.max_v_samp_factor;
        if (request->source.crop_width == 0 || request->source.crop_height == 0 ||
            (uint64_t)request->source.crop_x + request->source.crop_width > source.image_width ||
            (uint64_t)request->source.crop_y + request->source.crop_height > source.image_height ||
            request->source.crop_x % (uint32_t)imcu_width != 0 || request->source.crop_y % (uint32_t)imcu_height != 0) {
            status = CK_STATUS_MISMATCH;
            snprintf(request->message, sizeof request->message,
                     "the crop does not start on the %dx%d block grid inside the image", imcu_width,
                     imcu_height);
            longjmp(error.jump, 1);
        }
        request->progressive = source.progressive_mode ? 1 : 0;
        request->arithmetic = source.arith_code ? 1 : 0;
        // The crop's own arrays, made with the source's (as jpegtran does),
        // each component's size in blocks rounded up to its sampling factor.
        crop_arrays = (jvirt_barray_ptr *)(*source.mem->alloc_small)(
            (j_common_ptr)&source, JPOOL_IMAGE, sizeof(jvirt_barray_ptr) * (size_t)source.num_components);
        for (int ci = 0; ci < source.num_components; ci++) {
            jpeg_component_info *component = &source.comp_info[ci];
            // In iMCUs, as jpegtran's transupp sizes them (the sampling
            // factor was counted twice: 4x the blocks for 4:2:0 luma).
            JDIMENSION width =
                (JDIMENSION)(((uint64_t)request->source.crop_width + (uint64_t)imcu_width - 1) / (uint64_t)imcu_width);
            JDIMENSION height = (JDIMENSION)(((uint64_t)request->source.crop_height + (uint64_t)imcu_height - 1) /
                                             (uint64_t)imcu_height);
            // CropKit's own decoder zeroes each block it stores, on the
            // thread that decodes it: not pre-zeroed (on this thread) here.
            crop_arrays[ci] = (*source.mem->request_virt_barray)(
                (j_common_ptr)&source, JPOOL_IMAGE, own ? FALSE : TRUE, width * (JDIMENSION)component->h_samp_factor,
                height * (JDIMENSION)component->v_samp_factor, (JDIMENSION)component->v_samp_factor);
        }
        state.crop_arrays = crop_arrays;
        state.last_imcu_row = (long)((request->source.crop_y + request->source.crop_height - 1) / (uint32_t)imcu_height);
        state.first_imcu_row = (long)(request->source.crop_y / (uint32_t)imcu_height);
        if (own) {
            if (ck_decode_own(&source, input, request, &state, (jvirt_barray_ptr *)crop_arrays) != 0) {
                jpeg_destroy_decompress(&source);
                return ck_fall_back;
            }
            goto decoded;
        }
        state.request_virt_barray = source.mem->request_virt_barray;
        source.mem->request_virt_barray = ck_capture_barray;
        state.use_rings = !source.progressive_mode && source.comps_in_scan == source.num_components;
        state.access_virt_barray = source.mem->access_virt_barray;
        source.mem->access_virt_barray = ck_access_barray;
        state.capturing = 1;
        struct jpeg_progress_mgr progress;
        progress.progress_monitor = ck_transcode_progress;
        source.progress = &progress;
        jvirt_barray_ptr *arrays = jpeg_read_coefficients(&source);
        state.capturing = 0;
        for (int ci = 0; ci < source.num_components && ci < MAX_COMPONENTS; ci++) state.captured[ci] = arrays[ci];
        state.captured_count = source.num_components;
    }
decoded:
    // Here after the whole read, or after stopping below the crop (jump 3):
    // what the decode did not copy yet (all of it for a progressive or
    // multi-scan file) is copied now.
    source.progress = NULL;
    if (state.ring_count > 0 && state.copied_imcu_rows < state.last_imcu_row + 1) {
        // A ring keeps two rows: a row not copied as it passed is gone.
        snprintf(request->message, sizeof request->message, "the decode ended before the crop's last row");
        longjmp(error.jump, 1);
    }
    if (ck_copy_crop_rows(&source, &state, state.last_imcu_row + 1) != 0) {
        status = CK_STATUS_MISMATCH;
        snprintf(request->message, sizeof request->message,
                 "the crop's right or bottom edge cuts a block that holds pixels beyond it");
        longjmp(error.jump, 1);
    }
    // The new file: the source's tables, sampling and coding.
    output.err = source.err;
    jpeg_create_compress(&output);
    output_made = 1;
    ck_jpeg_use_output(&output, request->write, request->write_context);
    jpeg_copy_critical_parameters(&source, &output);
    output.image_width = request->source.crop_width;
    output.image_height = request->source.crop_height;
    output.write_JFIF_header = FALSE;
    output.write_Adobe_marker = FALSE;
    ck_jpeg_coding coding;
    memset(&coding, 0, sizeof coding);
    coding.progressive = source.progressive_mode ? 1 : 0;
    coding.arithmetic = source.arith_code ? 1 : 0;
    coding.optimize = 1;
    coding.restart_interval = (int)source.restart_interval;
    ck_jpeg_apply_coding(&output, &coding);
    if (request->entropy_mode != 1 && !coding.progressive && !coding.arithmetic) {
        // CropKit's own encoder, on two threads, writes the bytes
        // libjpeg-turbo's would; it declines what it does not encode
        // (progressive, arithmetic, a coefficient out of range) before
        // writing anything.
        long cores = ck_usable_cores();
        int written = ck_jpeg_huffman_write(&source, &output, (jvirt_barray_ptr *)crop_arrays, cores >= 2 ? 2 : 1,
                                            request->markers, request->markers_size, request->write,
                                            request->write_context);
        if (written != 0) {
            request->encoder = 1;
            jpeg_destroy_compress(&output);
            jpeg_destroy_decompress(&source);
            return written == 1 ? CK_STATUS_OK : CK_STATUS_CANNOT_OPEN;
        }
    }
    jpeg_write_coefficients(&output, crop_arrays);
    ck_jpeg_write_markers(&output, request->markers, request->markers_size);
    jpeg_finish_compress(&output);
    jpeg_destroy_compress(&output);
    jpeg_destroy_decompress(&source);
    return CK_STATUS_OK;
}

int ck_jpeg_transcode_crop(const ck_input *input, ck_jpeg_transcode_request *request) {
    if (request->entropy_mode != 1) {
        int status = ck_jpeg_transcode(input, request, 1);
        if (status != ck_fall_back) return status;
    }
    return ck_jpeg_transcode(input, request, 0);
}
