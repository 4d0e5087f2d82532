/* lolwut: LOLWUT, Redis's piece of generative art per major version, as
 * 7.0 answers it: VERSION 5 draws squares that fall into disorder row after
 * row (after Georg Nees' "Schotter") in Braille characters, VERSION 6 a city
 * skyline in four ANSI grays, any other version just the version line. The
 * pictures are random; their sizes, characters, palette and captions are
 * Redis's, so a client sees the same shapes. */
#include "server/server.h"
#include "server/reply.h"
#include "server/cmdargs.h"
#include "core/sds.h"
#include "core/zmalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A canvas of pixels, one byte each: 0 is the background, higher values are
 * darker (VERSION 6 uses 0..3, VERSION 5 only 0/1). */
typedef struct canvas {
    int width, height;
    unsigned char *pixels;
} canvas;

static canvas *canvasCreate(int width, int height) {
    canvas *cv = zmalloc(sizeof(*cv));
    cv->width = width;
    cv->height = height;
    cv->pixels = zcalloc((size_t)width * (size_t)height);
    return cv;
}

static void canvasFree(canvas *cv) {
    zfree(cv->pixels);
    zfree(cv);
}

static void canvasSet(canvas *cv, int x, int y, unsigned char color) {
    if (x < 0 || y < 0 || x >= cv->width || y >= cv->height) return;
    cv->pixels[(size_t)y * cv->width + x] = color;
}

static unsigned char canvasGet(const canvas *cv, int x, int y) {
    if (x < 0 || y < 0 || x >= cv->width || y >= cv->height) return 0;
    return cv->pixels[(size_t)y * cv->width + x];
}

static void canvasLine(canvas *cv, int x0, int y0, int x1, int y1, unsigned char color) {
    int dx = abs(x1 - x0), dy = -abs(y1 - y0);
    int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        canvasSet(cv, x0, y0, color);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

static void canvasFill(canvas *cv, int x0, int y0, int x1, int y1, unsigned char color) {
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) canvasSet(cv, x, y, color);
}

static double randomUnit(void) { return (double)random() / (double)RAND_MAX; }

/* --- VERSION 5: Schotter, in Braille ---------------------------------------- */

/* Draws the outline of a square of the given side centred on (cx, cy), turned
 * by angle radians. */
static void drawTurnedSquare(canvas *cv, double cx, double cy, double side, double angle) {
    double half = side / 2, px[4], py[4];
    static const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; i++) {
        double x = corner[i][0] * half, y = corner[i][1] * half;
        px[i] = cx + x * cos(angle) - y * sin(angle);
        py[i] = cy + x * sin(angle) + y * cos(angle);
    }
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) % 4;
        canvasLine(cv, (int)lround(px[i]), (int)lround(py[i]), (int)lround(px[j]), (int)lround(py[j]), 1);
    }
}

/* The canvas is two pixels per column wide; a two-pixel margin surrounds the
 * grid of squares (none on the narrowest canvases), and the grid's rows
 * decide the height. The first two rows stay in order; below them every
 * square is turned and shifted at random, more the lower it is. */
static canvas *drawSchotter(int cols, int per_row, int per_col) {
    int width = cols * 2;
    int margin = width > 4 ? 2 : 0;
    double side = (double)(width - 2 * margin) / per_row;
    int height = (int)(side * per_col) + 2 * margin;
    if (height < 1) height = 1;
    canvas *cv = canvasCreate(width, height);
    for (int row = 0; row < per_col; row++) {
        double disorder = row > 1 ? (double)row / per_col : 0;
        for (int col = 0; col < per_row; col++) {
            double cx = margin + col * side + side / 2;
            double cy = margin + row * side + side / 2;
            double angle = 0;
            if (disorder > 0) {
                angle = (randomUnit() * 2 - 1) * disorder;
                cx += (randomUnit() * 2 - 1) * disorder * side / 3;
                cy += (randomUnit() * 2 - 1) * disorder * side / 3;
            }
            drawTurnedSquare(cv, cx, cy, side, angle);
        }
    }
    return cv;
}

/* Each character shows 2x4 pixels as the dots of a Braille cell
 * (U+2800 plus one bit per raised dot). */
static sds renderBraille(const canvas *cv) {
    static const unsigned char dot[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    sds out = sdsempty();
    for (int y = 0; y < cv->height; y += 4) {
        for (int x = 0; x < cv->width; x += 2) {
            unsigned int bits = 0;
            for (int dy = 0; dy < 4; dy++)
                for (int dx = 0; dx < 2; dx++)
                    if (canvasGet(cv, x + dx, y + dy)) bits |= dot[dy][dx];
            unsigned int cp = 0x2800 + bits; /* three bytes of UTF-8 */
            char utf8[3] = {(char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)),
                            (char)(0x80 | (cp & 0x3F))};
            out = sdscatlen(out, utf8, 3);
        }
        out = sdscatlen(out, "\n", 1);
    }
    return out;
}

/* --- VERSION 6: a skyline, in ANSI grays ------------------------------------ */

/* Three rows of buildings, the far ones lightest; the nearest have lit
 * windows (background-coloured pixels) on their dark fronts. */
static canvas *drawSkyline(int cols, int rows) {
    canvas *cv = canvasCreate(cols, rows);
    for (int layer = 1; layer <= 3; layer++) {
        int x = -(int)(random() % 4);
        while (x < cols) {
            int w = 3 + (int)(random() % (unsigned)(4 + layer * 2));
            int maxh = rows * (5 - layer) / 5;
            int h = maxh > 1 ? 1 + (int)(random() % (unsigned)maxh) : 1;
            if (layer == 1) h = h / 2 + rows / 3;
            if (h > rows) h = rows;
            canvasFill(cv, x, rows - h, x + w, rows, (unsigned char)layer);
            if (layer == 3)
                for (int wy = rows - h + 1; wy < rows - 1; wy += 2)
                    for (int wx = x + 1; wx < x + w - 1; wx += 2)
                        if (random() % 3 == 0) canvasSet(cv, wx, wy, 0);
            x += w + (int)(random() % 3);
        }
    }
    return cv;
}

static sds renderAnsi(const canvas *cv) {
    static const char *const gray[4] = {"0;97;107", "0;37;47", "0;90;100", "0;30;40"};
    sds out = sdsempty();
    for (int y = 0; y < cv->height; y++) {
        for (int x = 0; x < cv->width; x++)
            out = sdscatprintf(out, "\033[%sm \033[0m", gray[canvasGet(cv, x, y) & 3]);
        out = sdscatlen(out, "\n", 1);
    }
    return out;
}

/* --- the command ------------------------------------------------------------ */

/* Reads the optional numeric arguments from argv[from] on, clamped to [1, max]
 * as Redis clamps them. C_ERR after replying on a non-integer. */
static int lolwutSizes(client *c, int from, long *vals, int nvals, long max) {
    for (int i = 0; i < nvals && from + i < c->argc; i++) {
        long long v;
        if (getLongLongFromObjectOrReply(c, c->argv[from + i], &v, NULL) != C_OK) return C_ERR;
        vals[i] = v < 1 ? 1 : v > max ? max : (long)v;
    }
    return C_OK;
}

static void replyPicture(client *c, canvas *cv, sds rendered, const char *caption) {
    rendered = sdscat(rendered, caption);
    rendered = sdscat(rendered, "Redis ver. " REDIS_VERSION "\n");
    addReplyVerbatim(c, rendered, sdslen(rendered), "txt");
    sdsfree(rendered);
    canvasFree(cv);
}

void lolwutCommand(client *c) {
    /* The version is read as Redis reads it: a long long taken as a 32-bit
     * unsigned major version (VERSION 4294967301 is 5). */
    unsigned int version = 0;
    int from = 1;
    if (c->argc >= 3 && !strcasecmp(objectPtr(c->argv[1]), "version")) {
        long long v;
        if (getLongLongFromObjectOrReply(c, c->argv[2], &v, NULL) != C_OK) return;
        version = (unsigned int)v;
        from = 3;
    }
    if (version == 5) {
        long sizes[3] = {66, 8, 12}; /* columns, squares per row, per column */
        if (lolwutSizes(c, from, sizes, 1, 1000) != C_OK) return;
        if (lolwutSizes(c, from + 1, sizes + 1, 2, 200) != C_OK) return;
        canvas *cv = drawSchotter((int)sizes[0], (int)sizes[1], (int)sizes[2]);
        replyPicture(c, cv, renderBraille(cv), "\nGeorg Nees - schotter, plotter on paper, 1968. ");
    } else if (version == 6) {
        long sizes[2] = {80, 20}; /* columns, rows */
        if (lolwutSizes(c, from, sizes, 2, 1000) != C_OK) return;
        canvas *cv = drawSkyline((int)sizes[0], (int)sizes[1]);
        replyPicture(c, cv, renderAnsi(cv),
                     "Dedicated to the 8 bit game developers of past and present.\n"
                     "Original 8 bit image from Plaguemon by hikikomori. ");
    } else {
        static const char plain[] = "Redis ver. " REDIS_VERSION "\n";
        addReplyVerbatim(c, plain, sizeof(plain) - 1, "txt");
    }
}
