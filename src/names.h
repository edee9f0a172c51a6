/* names.h: what a player's name may be. A name is normalized (NFC, Unicode whitespace trimmed
 * from both ends) and then refused when it could deceive the other players: characters that are
 * invisible, reorder text, control a terminal or show differently on every device, names longer
 * than NAMES_MAX_CHARS characters, and names that read as one of the server's bots.
 *
 * The rules, in full (README, "Player names", says the same for clients):
 *   - refused anywhere: C0 and C1 controls and DEL; bidirectional controls (U+061C, U+200E,
 *     U+200F, U+202A..U+202E, U+2066..U+2069); every other default-ignorable (invisible)
 *     character such as U+200B, U+2060..U+2064, U+FEFF, U+00AD, U+180E and the Hangul fillers;
 *     other format characters; U+2028/U+2029; U+2800 (the blank Braille pattern);
 *     noncharacters; private use; code points this server's Unicode tables (libunistring's)
 *     do not assign;
 *   - allowed only where writing needs them: U+200D (zero-width joiner) between two emoji, as
 *     in emoji ZWJ sequences; U+200C (zero-width non-joiner) after a virama or between letters
 *     of a joining script (the IDNA CONTEXTJ rule); U+FE0E/U+FE0F after an emoji; the other
 *     variation selectors after an ideograph; Mongolian free variation selectors after a
 *     Mongolian letter; tag characters in a flag's tag sequence (U+1F3F4, tags, U+E007F);
 *   - combining marks: not first, at most NAMES_MAX_MARKS in a row;
 *   - bot-like: after case folding, NFKC, dropping everything but letters and digits, and
 *     reading a few Cyrillic and Greek look-alikes as Latin, a name that is "bot" followed only
 *     by digits and optionally a bot kind ("Bot 2 (greedy)", "BOT", "b0t-3"), or a kind followed
 *     by "bot" and digits ("Greedy bot"). "Robot" and "Bot Bob" are fine.
 * Length counts code points after NFC and trimming. Pure functions: no I/O, no global state. */
#ifndef CITY_NAMES_H
#define CITY_NAMES_H

#include <stdbool.h>
#include <stddef.h>

enum {
    NAMES_MAX_CHARS = 40,                  /* code points, after NFC and trimming */
    NAMES_MAX_BYTES = NAMES_MAX_CHARS * 4, /* the longest clean name in UTF-8 */
    NAMES_MAX_INPUT = 1024,                /* bytes as sent; longer is refused unread */
    NAMES_MAX_MARKS = 4,                   /* combining marks in a row */
};

/* Why a name was refused. */
enum name_verdict {
    NAME_OK,
    NAME_EMPTY,     /* nothing left after trimming */
    NAME_TOO_LONG,  /* over NAMES_MAX_CHARS characters (or NAMES_MAX_INPUT bytes) */
    NAME_BAD_UTF8,  /* not UTF-8 (the JSON parser already refuses it; checked again here) */
    NAME_BAD_CHAR,  /* a character it must not hold, or one out of place */
    NAME_BOT_LIKE,  /* reads as one of the server's bots */
    NAME_NO_MEMORY, /* normalization ran out of memory */
};

/* Cleans the name `in` (`len` bytes, UTF-8, need not be NUL-terminated). On NAME_OK writes the
 * clean name, NUL-terminated, to `out` (NAMES_MAX_BYTES + 1 bytes). Otherwise writes to `why`
 * (`whylen` bytes, may be 0) one sentence for the client that says what was wrong (a refused
 * character as U+XXXX, with its position counted in characters from 1) and what to do; `out`
 * is then unspecified. Allocates only temporarily. */
enum name_verdict name_clean(const char *in, size_t len, char out[NAMES_MAX_BYTES + 1], char *why,
                             size_t whylen);

/* The room name_key() needs: case folding may triple a name's bytes. */
enum { NAMES_KEY_BYTES = NAMES_MAX_BYTES * 3 + 1 };

/* Writes to `out` (NAMES_KEY_BYTES bytes) the key under which clean name `s` (`len` bytes, as
 * name_clean() gave it) is unique among accounts: its full case folding in NFKC, so that "Ada",
 * "ADA" and "Ａｄａ" are one name. False when memory runs out or it does not fit. */
bool name_key(const char *s, size_t len, char out[NAMES_KEY_BYTES]);

/* Writes to `out` (NAMES_KEY_BYTES bytes) the key under which a name (NUL-terminated UTF-8) is
 * unique at one table: name_key()'s folding, with the Cyrillic and Greek look-alikes of Latin
 * letters read as those letters and each run of spaces as one ("Ada", "ADA", "Ａｄａ", "Аda" with
 * a Cyrillic A, and "Ada  Lee" against "Ada Lee" are one name each). False when memory runs out
 * or it does not fit. */
bool name_table_key(const char *s, char out[NAMES_KEY_BYTES]);

/* True when the UTF-8 name `s` (`len` bytes) reads as one of the server's bot names ("Bot 3
 * (greedy)" and its variants, above). */
bool name_is_bot_like(const char *s, size_t len);

#endif
