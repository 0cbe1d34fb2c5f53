/*
 * Text of build logs as the CLI and the TUI show it. A build's recorded
 * output is the generator's raw bytes, colour escapes included (a log keeps
 * what the tool wrote); a terminal view draws them as stray '?[31m' and a
 * file or pipe gets them literally, so both remove them before showing.
 * (The engine has its own copy for build errors: the client never includes
 * engine code.)
 */
#include <stddef.h>

#include "client.h"

/* Bytes of the escape sequence at p (left bytes remain): CSI (ESC [ ...
 * final byte), OSC (ESC ] ... BEL or ESC \), or ESC and one character. A
 * sequence cut off by the end of the text takes the rest. */
static size_t escape_length(const char *p, size_t left)
{
	size_t i;

	if (left < 2)
		return left;
	if (p[1] == '[') {
		for (i = 2; i < left; i++)
			if ((unsigned char)p[i] >= 0x40 &&
			    (unsigned char)p[i] <= 0x7e)
				return i + 1;
		return left;
	}
	if (p[1] == ']') {
		for (i = 2; i < left; i++) {
			if (p[i] == '\a')
				return i + 1;
			if (p[i] == 0x1b && i + 1 < left && p[i + 1] == '\\')
				return i + 2;
		}
		return left;
	}
	return 2;
}

size_t lc_strip_ansi(char *text, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		if (text[in] == 0x1b) {
			in += escape_length(text + in, len - in);
			continue;
		}
		text[out++] = text[in++];
	}
	if (out < len)
		text[out] = '\0';
	return out;
}
