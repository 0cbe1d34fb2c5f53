/*
 * The documentation-language and programming-language tables of the hosted
 * service, and lookups over them. The service lists "zh" nowhere any more (it
 * still serves old projects that use it but refuses it for new ones), so here
 * it is an unknown code like any other; "zh-cn" and "zh-tw" are the valid
 * Chinese codes. The tables are short, so lookups are linear scans.
 */
#include <string.h>

#include "lectern/language.h"

static const struct lec_language languages[] = {
	{ "aa", "Afar" },
	{ "ab", "Abkhaz" },
	{ "acr", "Achi" },
	{ "af", "Afrikaans" },
	{ "agu", "Awakateko" },
	{ "am", "Amharic" },
	{ "ar", "Arabic" },
	{ "as", "Assamese" },
	{ "ay", "Aymara" },
	{ "az", "Azerbaijani" },
	{ "ba", "Bashkir" },
	{ "be", "Belarusian" },
	{ "bg", "Bulgarian" },
	{ "bh", "Bihari" },
	{ "bi", "Bislama" },
	{ "bn", "Bengali" },
	{ "bo", "Tibetan" },
	{ "br", "Breton" },
	{ "ca", "Catalan" },
	{ "caa", "Ch'orti'" },
	{ "cac", "Chuj" },
	{ "cab", "Gar\xc3\xad" "funa" },
	{ "cak", "Kaqchikel" },
	{ "co", "Corsican" },
	{ "cs", "Czech" },
	{ "cy", "Welsh" },
	{ "da", "Danish" },
	{ "de", "German" },
	{ "dz", "Dzongkha" },
	{ "el", "Greek" },
	{ "en", "English" },
	{ "eo", "Esperanto" },
	{ "es", "Spanish" },
	{ "et", "Estonian" },
	{ "eu", "Basque" },
	{ "fa", "Iranian" },
	{ "fi", "Finnish" },
	{ "fj", "Fijian" },
	{ "fo", "Faroese" },
	{ "fr", "French" },
	{ "fy", "Western Frisian" },
	{ "ga", "Irish" },
	{ "gd", "Scottish Gaelic" },
	{ "gl", "Galician" },
	{ "gn", "Guarani" },
	{ "gu", "Gujarati" },
	{ "ha", "Hausa" },
	{ "hi", "Hindi" },
	{ "he", "Hebrew" },
	{ "hr", "Croatian" },
	{ "hu", "Hungarian" },
	{ "hy", "Armenian" },
	{ "ia", "Interlingua" },
	{ "id", "Indonesian" },
	{ "ie", "Interlingue" },
	{ "ik", "Inupiaq" },
	{ "is", "Icelandic" },
	{ "it", "Italian" },
	{ "itz", "Itza'" },
	{ "iu", "Inuktitut" },
	{ "ixl", "Ixil" },
	{ "ja", "Japanese" },
	{ "jac", "Popti'" },
	{ "jv", "Javanese" },
	{ "ka", "Georgian" },
	{ "kjb", "Q'anjob'al" },
	{ "kek", "Q'eqchi'" },
	{ "kk", "Kazakh" },
	{ "kl", "Kalaallisut" },
	{ "km", "Khmer" },
	{ "kn", "Kannada" },
	{ "knj", "Akateko" },
	{ "ko", "Korean" },
	{ "ks", "Kashmiri" },
	{ "ku", "Kurdish" },
	{ "ky", "Kyrgyz" },
	{ "la", "Latin" },
	{ "ln", "Lingala" },
	{ "lo", "Lao" },
	{ "lt", "Lithuanian" },
	{ "lv", "Latvian" },
	{ "mam", "Mam" },
	{ "mg", "Malagasy" },
	{ "mi", "Maori" },
	{ "mk", "Macedonian" },
	{ "ml", "Malayalam" },
	{ "mn", "Mongolian" },
	{ "mop", "Mopan" },
	{ "mr", "Marathi" },
	{ "ms", "Malay" },
	{ "mt", "Maltese" },
	{ "my", "Burmese" },
	{ "na", "Nauru" },
	{ "ne", "Nepali" },
	{ "nl", "Dutch" },
	{ "no", "Norwegian" },
	{ "oc", "Occitan" },
	{ "om", "Oromo" },
	{ "or", "Oriya" },
	{ "pa", "Panjabi" },
	{ "pl", "Polish" },
	{ "pnb", "Western Punjabi" },
	{ "poc", "Poqomam" },
	{ "poh", "Poqomchi" },
	{ "ps", "Pashto" },
	{ "pt", "Portuguese" },
	{ "qu", "Quechua" },
	{ "quc", "K'iche'" },
	{ "qum", "Sipakapense" },
	{ "quv", "Sakapulteko" },
	{ "rm", "Romansh" },
	{ "rn", "Kirundi" },
	{ "ro", "Romanian" },
	{ "ru", "Russian" },
	{ "rw", "Kinyarwanda" },
	{ "sa", "Sanskrit" },
	{ "sd", "Sindhi" },
	{ "sg", "Sango" },
	{ "si", "Sinhala" },
	{ "sk", "Slovak" },
	{ "skr", "Saraiki" },
	{ "sl", "Slovenian" },
	{ "sm", "Samoan" },
	{ "sn", "Shona" },
	{ "so", "Somali" },
	{ "sq", "Albanian" },
	{ "sr", "Serbian" },
	{ "ss", "Swati" },
	{ "st", "Southern Sotho" },
	{ "su", "Sudanese" },
	{ "sv", "Swedish" },
	{ "sw", "Swahili" },
	{ "ta", "Tamil" },
	{ "te", "Telugu" },
	{ "tg", "Tajik" },
	{ "th", "Thai" },
	{ "ti", "Tigrinya" },
	{ "tk", "Turkmen" },
	{ "tl", "Tagalog" },
	{ "tn", "Tswana" },
	{ "to", "Tonga" },
	{ "tr", "Turkish" },
	{ "ts", "Tsonga" },
	{ "tt", "Tatar" },
	{ "ttc", "Tektiteko" },
	{ "tzj", "Tz'utujil" },
	{ "tw", "Twi" },
	{ "ug", "Uyghur" },
	{ "uk", "Ukrainian" },
	{ "ur", "Urdu" },
	{ "usp", "Uspanteko" },
	{ "uz", "Uzbek" },
	{ "vi", "Vietnamese" },
	{ "vo", "Volapuk" },
	{ "wo", "Wolof" },
	{ "xh", "Xhosa" },
	{ "xin", "Xinka" },
	{ "yi", "Yiddish" },
	{ "yo", "Yoruba" },
	{ "za", "Zhuang" },
	{ "zu", "Zulu" },
	/* The service's codes with a region. */
	{ "nb-no", "Norwegian Bokmal" },
	{ "pt-br", "Brazilian Portuguese" },
	{ "es-mx", "Mexican Spanish" },
	{ "uk-ua", "Ukrainian" },
	{ "zh-cn", "Simplified Chinese" },
	{ "zh-tw", "Traditional Chinese" },
};

static const struct lec_language programming_languages[] = {
	{ "words", "Only Words" },
	{ "py", "Python" },
	{ "js", "JavaScript" },
	{ "php", "PHP" },
	{ "ruby", "Ruby" },
	{ "perl", "Perl" },
	{ "java", "Java" },
	{ "go", "Go" },
	{ "julia", "Julia" },
	{ "c", "C" },
	{ "csharp", "C#" },
	{ "cpp", "C++" },
	{ "objc", "Objective-C" },
	{ "css", "CSS" },
	{ "ts", "TypeScript" },
	{ "swift", "Swift" },
	{ "vb", "Visual Basic" },
	{ "r", "R" },
	{ "scala", "Scala" },
	{ "groovy", "Groovy" },
	{ "coffee", "CoffeeScript" },
	{ "lua", "Lua" },
	{ "haskell", "Haskell" },
	{ "other", "Other" },
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const struct lec_language *find(const struct lec_language *table,
				       size_t count, const char *code)
{
	size_t i;

	if (code == NULL)
		return NULL;
	for (i = 0; i < count; i++)
		if (strcmp(table[i].code, code) == 0)
			return &table[i];
	return NULL;
}

const struct lec_language *lec_languages(size_t *count)
{
	*count = COUNT_OF(languages);
	return languages;
}

const char *lec_language_name(const char *code)
{
	const struct lec_language *l =
		find(languages, COUNT_OF(languages), code);

	return l ? l->name : LEC_LANGUAGE_UNKNOWN_NAME;
}

int lec_language_valid(const char *code)
{
	return find(languages, COUNT_OF(languages), code) != NULL;
}

const struct lec_language *lec_programming_languages(size_t *count)
{
	*count = COUNT_OF(programming_languages);
	return programming_languages;
}

const char *lec_programming_language_name(const char *code)
{
	const struct lec_language *l = find(
		programming_languages, COUNT_OF(programming_languages), code);

	return l ? l->name : LEC_LANGUAGE_UNKNOWN_NAME;
}

int lec_programming_language_valid(const char *code)
{
	return find(programming_languages, COUNT_OF(programming_languages),
		    code) != NULL;
}
