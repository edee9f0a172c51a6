/* names.c: player names (see names.h): NFC, trimming, the characters a name may not hold and
 * the names that read as a bot's, with libunistring's Unicode tables. */
#include "names.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicase.h>
#include <unictype.h>
#include <uninorm.h>
#include <unistr.h>

#include "ruleset.h"

static enum name_verdict say(enum name_verdict v, char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static enum name_verdict say(enum name_verdict v, char *why, size_t whylen, const char *fmt, ...)
{
    if (whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return v;
}

static bool is_cat(ucs4_t c, uc_general_category_t cat)
{
    return uc_is_general_category(c, cat);
}

static bool is_mark(ucs4_t c)
{
    return is_cat(c, UC_CATEGORY_M);
}

static bool is_noncharacter(ucs4_t c)
{
    return (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe;
}

static bool is_bidi_control(ucs4_t c)
{
    return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

static bool is_emoji_modifier(ucs4_t c)
{
    return c >= 0x1f3fb && c <= 0x1f3ff;
}

/* The emoji before a ZWJ at i: skips the VS16 and skin tone that may sit between. */
static bool emoji_before(const ucs4_t *s, size_t i)
{
    while (i > 0 && (s[i - 1] == 0xfe0f || is_emoji_modifier(s[i - 1])))
        i--;
    return i > 0 && uc_is_property_extended_pictographic(s[i - 1]);
}

/* IDNA's CONTEXTJ rule for U+200C at i: after a virama, or (L|D) T* ZWNJ T* (R|D). */
static bool zwnj_in_context(const ucs4_t *s, size_t n, size_t i)
{
    if (i > 0 && uc_combining_class(s[i - 1]) == UC_CCC_VR)
        return true;
    size_t a = i;
    while (a > 0 && uc_joining_type(s[a - 1]) == UC_JOINING_TYPE_T)
        a--;
    size_t b = i + 1;
    while (b < n && uc_joining_type(s[b]) == UC_JOINING_TYPE_T)
        b++;
    if (a == 0 || b >= n)
        return false;
    int l = uc_joining_type(s[a - 1]), r = uc_joining_type(s[b]);
    return (l == UC_JOINING_TYPE_L || l == UC_JOINING_TYPE_D) &&
           (r == UC_JOINING_TYPE_R || r == UC_JOINING_TYPE_D);
}

/* The length of the flag tag sequence starting with U+1F3F4 at i (tags, then U+E007F), or 0. */
static size_t flag_tag_sequence(const ucs4_t *s, size_t n, size_t i)
{
    if (s[i] != 0x1f3f4)
        return 0;
    size_t j = i + 1;
    while (j < n && s[j] >= 0xe0020 && s[j] <= 0xe007e)
        j++;
    return j > i + 1 && j < n && s[j] == 0xe007f ? j + 1 - i : 0;
}

/* Why s[i] may not stand where it is ("a bidirectional control, ..."), or NULL when it may.
 * `advice` gets what to do instead. */
static const char *refusal(const ucs4_t *s, size_t n, size_t i, const char **advice)
{
    ucs4_t c = s[i], p = i > 0 ? s[i - 1] : 0;
    *advice = "Send the name without it.";
    if (is_noncharacter(c))
        return "a noncharacter, which Unicode reserves for programs' internal use";
    if (is_cat(c, UC_CATEGORY_Cc))
        return "a control character, which can break lines or drive a terminal";
    if (is_bidi_control(c))
        return "a bidirectional control, which can reorder the text around it";
    if (c == 0x200d) {
        if (emoji_before(s, i) && i + 1 < n && uc_is_property_extended_pictographic(s[i + 1]))
            return NULL;
        *advice = "A zero-width joiner is allowed only between two emoji; send the name without "
                  "it.";
        return "a zero-width joiner out of place, which is invisible";
    }
    if (c == 0x200c) {
        if (zwnj_in_context(s, n, i))
            return NULL;
        *advice = "A zero-width non-joiner is allowed only after a virama or between joining "
                  "letters; send the name without it.";
        return "a zero-width non-joiner out of place, which is invisible";
    }
    if (c == 0xfe0e || c == 0xfe0f) {
        if (i > 0 && uc_is_property_emoji(p))
            return NULL;
        *advice = "An emoji variation selector is allowed only right after an emoji; send the "
                  "name without it.";
        return "a variation selector that follows no emoji, which is invisible";
    }
    if ((c >= 0xfe00 && c <= 0xfe0d) || (c >= 0xe0100 && c <= 0xe01ef)) {
        if (i > 0 && uc_is_property_ideographic(p))
            return NULL;
        *advice = "This variation selector is allowed only right after an ideograph; send the "
                  "name without it.";
        return "a variation selector that follows no ideograph, which is invisible";
    }
    if ((c >= 0x180b && c <= 0x180d) || c == 0x180f) {
        if (p >= 0x1820 && p <= 0x18aa)
            return NULL;
        *advice = "A Mongolian variation selector is allowed only after a Mongolian letter; send "
                  "the name without it.";
        return "a Mongolian variation selector out of place, which is invisible";
    }
    if (c >= 0xe0000 && c <= 0xe007f) {
        *advice = "Tag characters are allowed only in a flag's tag sequence; send the name "
                  "without them.";
        return "a tag character, which is invisible";
    }
    if (uc_is_property_default_ignorable_code_point(c))
        return "an invisible character (zero-width, a soft hyphen, a filler or the like), which "
               "would make two different names look the same";
    if (is_cat(c, UC_CATEGORY_Cf))
        return "a formatting character, which changes how the text around it shows";
    if (is_cat(c, UC_CATEGORY_Zl) || is_cat(c, UC_CATEGORY_Zp))
        return "a line or paragraph separator";
    if (c == 0x2800)
        return "a blank Braille pattern, which shows as nothing";
    if (is_cat(c, UC_CATEGORY_Co))
        return "a private-use character, which shows differently on every device";
    if (is_cat(c, UC_CATEGORY_Cs) || is_cat(c, UC_CATEGORY_Cn)) {
        *advice = "Send the name without it (this server knows Unicode as its libunistring "
                  "does; a newer emoji may be too new for it).";
        return "a code point not assigned in Unicode";
    }
    if (is_mark(c)) {
        if (i == 0) {
            *advice = "Put the letter it belongs to before it.";
            return "a combining mark with no letter before it";
        }
        size_t run = 1;
        while (run <= i && is_mark(s[i - run]))
            run++;
        if (run > NAMES_MAX_MARKS) {
            *advice = "Use at most 4 combining marks on one letter."; /* NAMES_MAX_MARKS */
            return "one combining mark too many on one letter (stacked marks spill over the "
                   "text around them)";
        }
    }
    return NULL;
}

/* ---- bot-like names ----------------------------------------------------------------------- */

/* Latin letters and the Cyrillic and Greek (and one digit) look-alikes read as them. */
static const struct {
    char latin;
    ucs4_t like[6];
} lookalikes[] = {
    {'a', {0x0430, 0x03b1}}, {'b', {0x0432, 0x044c, 0x03b2, 0x0185}},
    {'d', {0x0501}},         {'e', {0x0435, 0x03b5}},
    {'g', {0x0261}},         {'m', {0x043c}},
    {'n', {0x043f, 0x03b7}}, {'o', {'0', 0x043e, 0x03bf, 0x0585, 0x03c3}},
    {'r', {0x0433}},         {'t', {0x0442, 0x03c4}},
    {'y', {0x0443, 0x03b3}},
};

static bool reads_as(ucs4_t c, char latin)
{
    if (c == (ucs4_t)(unsigned char)latin)
        return true;
    for (size_t i = 0; i < sizeof lookalikes / sizeof *lookalikes; i++)
        if (lookalikes[i].latin == latin)
            for (size_t k = 0; k < 6 && lookalikes[i].like[k]; k++)
                if (lookalikes[i].like[k] == c)
                    return true;
    return false;
}

/* True when s[*i..] reads as `word`; advances *i past it. */
static bool read_word(const ucs4_t *s, size_t n, size_t *i, const char *word)
{
    size_t j = *i;
    for (; *word; word++, j++)
        if (j >= n || !reads_as(s[j], *word))
            return false;
    *i = j;
    return true;
}

static void read_digits(const ucs4_t *s, size_t n, size_t *i)
{
    while (*i < n && uc_decimal_value(s[*i]) >= 0)
        (*i)++;
}

/* True when s[*i..] reads as a bot kind's name; advances *i past it. */
static bool read_kind(const ucs4_t *s, size_t n, size_t *i)
{
    for (int r = 0; rulesets[r]; r++)
        for (int k = 0; rulesets[r]->bots[k]; k++)
            if (read_word(s, n, i, rulesets[r]->bots[k]))
                return true;
    return false;
}

bool name_key(const char *s, size_t len, char out[NAMES_KEY_BYTES])
{
    size_t flen = 0;
    uint8_t *folded = u8_casefold((const uint8_t *)s, len, NULL, UNINORM_NFKC, NULL, &flen);
    bool ok = folded && flen < NAMES_KEY_BYTES;
    if (ok) {
        memcpy(out, folded, flen);
        out[flen] = 0;
    }
    free(folded);
    return ok;
}

/* The Latin letter that c reads as (the look-alikes above), else c itself. */
static ucs4_t latin_of(ucs4_t c)
{
    for (size_t i = 0; i < sizeof lookalikes / sizeof *lookalikes; i++)
        for (size_t k = 0; k < 6 && lookalikes[i].like[k]; k++)
            if (lookalikes[i].like[k] == c)
                return (ucs4_t)(unsigned char)lookalikes[i].latin;
    return c;
}

/* The code points of UTF-8 `s` (`len` bytes) after full case folding in NFKC, *n of them
 * (malloc'd); NULL when memory runs out. */
static ucs4_t *folded_code_points(const char *s, size_t len, size_t *n)
{
    size_t flen = 0;
    uint8_t *folded = u8_casefold((const uint8_t *)s, len, NULL, UNINORM_NFKC, NULL, &flen);
    if (!folded)
        return NULL;
    *n = 0;
    ucs4_t *k = u8_to_u32(folded, flen, NULL, n);
    free(folded);
    return k;
}

bool name_table_key(const char *s, char out[NAMES_KEY_BYTES])
{
    size_t n = 0;
    ucs4_t *k = folded_code_points(s, strlen(s), &n);
    if (!k)
        return false;
    size_t m = 0; /* look-alikes as Latin, each run of spaces as one */
    for (size_t i = 0; i < n; i++) {
        ucs4_t c = uc_is_property_white_space(k[i]) ? ' ' : latin_of(k[i]);
        if (!(c == ' ' && m > 0 && k[m - 1] == ' '))
            k[m++] = c;
    }
    size_t olen = NAMES_KEY_BYTES - 1;
    uint8_t *o = u32_to_u8(k, m, (uint8_t *)out, &olen);
    free(k);
    if (o && o != (uint8_t *)out) { /* it did not fit */
        free(o);
        return false;
    }
    if (o)
        out[olen] = 0;
    return o != NULL;
}

bool name_is_bot_like(const char *s, size_t len)
{
    size_t n = 0;
    ucs4_t *k = folded_code_points(s, len, &n);
    if (!k)
        return false;
    size_t m = 0; /* keep letters and digits only */
    for (size_t i = 0; i < n; i++)
        if (is_cat(k[i], UC_CATEGORY_L) || is_cat(k[i], UC_CATEGORY_N))
            k[m++] = k[i];
    size_t i = 0;
    bool bot = false;
    if (read_word(k, m, &i, "bot")) { /* bot, digits, maybe a kind */
        read_digits(k, m, &i);
        bot = i == m || (read_kind(k, m, &i) && i == m);
    }
    if (!bot) { /* a kind, bot, digits */
        i = 0;
        bot = read_kind(k, m, &i) && read_word(k, m, &i, "bot");
        if (bot) {
            read_digits(k, m, &i);
            bot = i == m;
        }
    }
    free(k);
    return bot;
}

/* ---- the whole name ----------------------------------------------------------------------- */

enum name_verdict name_clean(const char *in, size_t len, char out[NAMES_MAX_BYTES + 1], char *why,
                             size_t whylen)
{
    static const char too_long[] =
        "\"name\" must have 1 to %d characters; send a shorter name (the one others will see).";
    if (len > NAMES_MAX_INPUT)
        return say(NAME_TOO_LONG, why, whylen, too_long, NAMES_MAX_CHARS);
    if (u8_check((const uint8_t *)in, len))
        return say(NAME_BAD_UTF8, why, whylen, "\"name\" must be UTF-8 text.");
    size_t nlen = 0;
    uint8_t *nfc = u8_normalize(UNINORM_NFC, (const uint8_t *)in, len, NULL, &nlen);
    if (!nfc && len)
        return say(NAME_NO_MEMORY, why, whylen, "The server ran out of memory; try again.");
    size_t n = 0;
    ucs4_t *s = nfc ? u8_to_u32(nfc, nlen, NULL, &n) : NULL;
    free(nfc);
    if (!s && nlen)
        return say(NAME_NO_MEMORY, why, whylen, "The server ran out of memory; try again.");
    size_t a = 0, b = n;
    while (a < b && uc_is_property_white_space(s[a]))
        a++;
    while (b > a && uc_is_property_white_space(s[b - 1]))
        b--;
    enum name_verdict v = NAME_OK;
    if (a == b)
        v = say(NAME_EMPTY, why, whylen, too_long, NAMES_MAX_CHARS);
    else if (b - a > NAMES_MAX_CHARS)
        v = say(NAME_TOO_LONG, why, whylen, too_long, NAMES_MAX_CHARS);
    for (size_t i = 0; v == NAME_OK && i < b - a; i++) {
        size_t flag = flag_tag_sequence(s + a, b - a, i);
        if (flag) {
            i += flag - 1;
            continue;
        }
        const char *advice, *what = refusal(s + a, b - a, i, &advice);
        if (what)
            v = say(NAME_BAD_CHAR, why, whylen, "\"name\" holds U+%04X at character %zu: %s. %s",
                    (unsigned)s[a + i], i + 1, what, advice);
    }
    if (v == NAME_OK) {
        size_t olen = NAMES_MAX_BYTES;
        uint8_t *o = u32_to_u8(s + a, b - a, (uint8_t *)out, &olen);
        if (o != (uint8_t *)out) { /* cannot happen: 40 code points fit */
            free(o);
            v = say(NAME_TOO_LONG, why, whylen, too_long, NAMES_MAX_CHARS);
        } else {
            out[olen] = 0;
            if (name_is_bot_like(out, olen))
                v = say(NAME_BOT_LIKE, why, whylen,
                        "\"name\" reads as one of the server's bots (\"Bot 2 (greedy)\" and "
                        "the like); people choose another name, so that everyone can tell who "
                        "is a bot.");
        }
    }
    free(s);
    return v;
}
