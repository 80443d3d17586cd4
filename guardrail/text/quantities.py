"""Numbers with what they measure: digits, number words, scale words, units, currencies, percentages, bounds.

Why here, once: the fact checks compare a claim's "25 milligrams" with the evidence's "25 micrograms",
its "1.2 billion" with "1,200,000,000", its "about 3.1 miles" with "5 km", and its "rose 1.5%" with
"rose 1.5 percentage points". Each of those needs the value, the dimension and the scale of a number,
parsed the same way for claims, evidence, the red team's mutations and the policy's caveats.

Why not pint: pint's registry takes ~0.3 s to build and parses one unit string in tens of
microseconds; the fact checks parse every evidence sentence of every context, within a 2 ms budget per
claim. The table below covers the units answers actually carry (mass, length, volume, time, data,
temperature, area, speed, energy, power, pressure, currency) with exact conversion factors.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, replace

from . import lexicon

__all__ = ["Quantity", "parse_quantities", "same_value", "UNITS", "CURRENCIES", "number_word_value", "PERIOD_SECONDS"]

# unit word -> (dimension, factor to the dimension's base unit). Lower-case keys; matched whole-word.
_UNIT_TABLE: dict[str, tuple[str, float]] = {}


def _add(dim: str, factor: float, *names: str) -> None:
    for n in names:
        _UNIT_TABLE[n] = (dim, factor)


_add("mass", 1e-9, "ng", "nanogram", "nanograms")
_add("mass", 1e-6, "µg", "μg", "mcg", "ug", "microgram", "micrograms", "microgramme", "microgrammes")
_add("mass", 1e-3, "mg", "milligram", "milligrams", "milligramme", "milligrammes")
_add("mass", 1.0, "g", "gram", "grams", "gramme", "grammes", "gr")
_add("mass", 1e3, "kg", "kgs", "kilogram", "kilograms", "kilo", "kilos")
_add("mass", 1e6, "t", "tonne", "tonnes", "metric ton", "metric tons")
_add("mass", 453.59237, "lb", "lbs")
_add("mass", 28.349523125, "oz", "ounce", "ounces")
_add("length", 1e-9, "nm", "nanometre", "nanometres", "nanometer", "nanometers")
_add("length", 1e-6, "µm", "micrometre", "micrometres", "micrometer", "micrometers", "micron", "microns")
_add("length", 1e-3, "mm", "millimetre", "millimetres", "millimeter", "millimeters")
_add("length", 1e-2, "cm", "centimetre", "centimetres", "centimeter", "centimeters")
_add("length", 1.0, "m", "metre", "metres", "meter", "meters")
_add("length", 1e3, "km", "kilometre", "kilometres", "kilometer", "kilometers", "kms")
_add("length", 0.0254, "inch", "inches")  # "in" is a preposition far more often
_add("length", 0.3048, "ft", "foot", "feet")
_add("length", 0.9144, "yd", "yard", "yards")
_add("length", 1609.344, "mi", "mile", "miles")
_add("length", 1852.0, "nmi", "nautical mile", "nautical miles", "nautical-mile", "nautical-miles")
_add("length", 1.495978707e11, "au", "astronomical unit", "astronomical units")
_add("length", 9.4607304725808e15, "light year", "light years", "light-year", "light-years")
_add("length", 3.0856775814913673e16, "parsec", "parsecs")  # not "pc": "a 5pc rise" is per cent
_add("volume", 1e-3, "ml", "millilitre", "millilitres", "milliliter", "milliliters", "cc")
_add("volume", 1e-2, "cl", "centilitre", "centilitres")
_add("volume", 0.1, "dl", "decilitre", "decilitres")
_add("volume", 1.0, "l", "litre", "litres", "liter", "liters")
_add("volume", 3.785411784, "gallon", "gallons", "gal", "us gallon", "us gallons", "u.s. gallons")
_add("volume", 4.54609, "imperial gallon", "imperial gallons")
_add("volume", 0.0295735295625, "fl oz", "fluid ounce", "fluid ounces")
_add("volume", 0.473176473, "pint", "pints")
_add("volume", 1e3, "m3", "m³", "cubic metre", "cubic metres", "cubic meter", "cubic meters")
_add("volume", 28.316846592, "cu ft", "cubic foot", "cubic feet", "ft3", "ft³", "cu. ft.", "cu. ft")
_add("volume", 0.016387064, "cu in", "cubic inch", "cubic inches", "in3", "in³")
_add("volume", 764.554857984, "cu yd", "cubic yard", "cubic yards", "yd3", "yd³")
_add("time", 1e-3, "ms", "millisecond", "milliseconds")
_add("time", 1.0, "s", "sec", "secs", "second", "seconds")
_add("time", 60.0, "min", "mins", "minute", "minutes")
_add("time", 3600.0, "h", "hr", "hrs", "hour", "hours")
_add("time", 86400.0, "day", "days")
_add("time", 604800.0, "week", "weeks", "wk", "wks")
_add("time", 2629746.0, "month", "months")
_add("time", 31556952.0, "year", "years", "yr", "yrs")
_add("time", 315569520.0, "decade", "decades")
_add("data", 1.0, "b", "byte", "bytes")
_add("data", 1e3, "kb", "kilobyte", "kilobytes")
_add("data", 1e6, "mb", "megabyte", "megabytes")
_add("data", 1e9, "gb", "gigabyte", "gigabytes")
_add("data", 1e12, "tb", "terabyte", "terabytes")
_add("data", 1e15, "pb", "petabyte", "petabytes")
_add("datarate", 1e3, "kbps", "kbit/s")
_add("datarate", 1e6, "mbps", "mbit/s", "mb/s")
_add("datarate", 1e9, "gbps", "gbit/s", "gb/s")
_add("area", 1e-4, "cm2", "cm²", "square centimetre", "square centimetres")
_add("area", 1.0, "m2", "m²", "sq m", "square metre", "square metres", "square meter", "square meters")
_add("area", 1e4, "ha", "hectare", "hectares")
_add("area", 1e6, "km2", "km²", "sq km", "square kilometre", "square kilometres", "square kilometer", "square kilometers")
_add("area", 0.09290304, "sq ft", "square foot", "square feet", "ft2", "ft²")
_add("area", 4046.8564224, "acre", "acres")
_add("area", 2589988.110336, "sq mi", "square mile", "square miles")
_add("speed", 1 / 3.6, "km/h", "kmh", "kph", "kilometres per hour", "kilometers per hour")
_add("speed", 0.44704, "mph", "miles per hour")
_add("speed", 1.0, "m/s", "metres per second", "meters per second")
_add("speed", 0.514444, "knot", "knots", "kn")
_add("energy", 1.0, "j", "joule", "joules")
_add("energy", 1e3, "kj", "kilojoule", "kilojoules")
_add("energy", 3600.0, "wh", "watt-hour", "watt-hours")
_add("energy", 3.6e6, "kwh", "kilowatt-hour", "kilowatt-hours")
_add("energy", 3.6e9, "mwh", "megawatt-hour", "megawatt-hours")
_add("energy", 3.6e12, "gwh", "gigawatt-hour", "gigawatt-hours")
_add("energy", 3.6e15, "twh", "terawatt-hour", "terawatt-hours")
_add("energy", 4184.0, "kcal", "calorie", "calories", "cal")
_add("power", 1.0, "w", "watt", "watts")
_add("power", 1e3, "kw", "kilowatt", "kilowatts")
_add("power", 1e6, "mw", "megawatt", "megawatts")
_add("power", 1e9, "gw", "gigawatt", "gigawatts")
_add("power", 745.699872, "hp", "horsepower")
_add("current", 1e-3, "milliamp", "milliamps", "milliampere", "milliamperes")
_add("current", 1.0, "amp", "amps", "ampere", "amperes")
_add("voltage", 1e-3, "mv", "millivolt", "millivolts")
_add("voltage", 1.0, "volt", "volts")  # not "v": "Smith v Jones", "5 v 2"
_add("voltage", 1e3, "kv", "kilovolt", "kilovolts")
_add("charge", 3.6, "mah", "milliamp-hour", "milliamp-hours")
_add("pressure", 133.322, "mmhg")
_add("pressure", 6894.757, "psi")
_add("pressure", 1e5, "bar")
_add("pressure", 1e3, "kpa")
_add("iu", 1.0, "iu", "international units", "international unit")
_add("percent", 1.0, "%", "percent", "per cent", "pct")
_add("points", 1.0, "percentage points", "percentage point", "percentage-points", "percentage-point", "pp", "points", "point", "pts", "basis points")
_add("temperature", 1.0, "°c", "ºc", "degrees celsius", "celsius", "°f", "ºf", "degrees fahrenheit", "fahrenheit", "k", "kelvin")
_UNIT_TABLE["basis points"] = ("points", 0.01)
#: Public view of the unit table.
UNITS = _UNIT_TABLE

# currency symbol / code / word -> ISO code
CURRENCIES: dict[str, str] = {
    "$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD",
    "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR",
    "£": "GBP", "gbp": "GBP", "pound sterling": "GBP", "pounds sterling": "GBP", "sterling": "GBP",
    "¥": "JPY", "jpy": "JPY", "yen": "JPY",
    "chf": "CHF", "swiss francs": "CHF", "francs": "CHF",
    "c$": "CAD", "cad": "CAD", "a$": "AUD", "aud": "AUD",
    "us dollars": "USD", "u.s. dollars": "USD", "american dollars": "USD", "canadian dollars": "CAD",
    "australian dollars": "AUD", "new zealand dollars": "NZD", "nzd": "NZD", "hong kong dollars": "HKD", "hkd": "HKD",
    "singapore dollars": "SGD", "sgd": "SGD",
    "₹": "INR", "inr": "INR", "rupee": "INR", "rupees": "INR",
    # a hundredth of whichever currency the text is in: "58 cents per mile" is $0.58 or €0.58
    "cents": "CENT", "cent": "CENT", "¢": "CENT", "pence": "PENCE", "penny": "PENCE", "pennies": "PENCE",
    "cny": "CNY", "yuan": "CNY", "rmb": "CNY", "sek": "SEK", "nok": "NOK", "dkk": "DKK", "kr": "SEK",
    # ISO codes written before or after the figure ("NOK 14,500", "14,500 SEK")
    **{code.lower(): code for code in "ZAR BRL MXN PLN CZK HUF KRW TRY ILS AED SAR THB".split()},
}
# "pounds" is money or weight; after a number with no other clue it is read as GBP money only when
# the text around has a currency word (see _pounds_are_money).

_SCALE_WORDS: dict[str, float] = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6, "mln": 1e6,
    "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12, "crore": 1e7, "lakh": 1e5,
}
_WRITTEN_SCALE = re.compile(r"\d\s*(?:thousand|million|billion|trillion|mn|bn|tn)\b", re.I)


def written_with_scale(text: str) -> bool:
    """Is a figure's text its digits before a scale word ("33 million", "1.8bn")? Why: the same digits before
    another scale word ("33 billion") are the commonest slip in copying a large count, which a figure with no unit
    can be read for only by its written scale (a bare "33,000,000" or "33" says nothing of one)."""
    return _WRITTEN_SCALE.search(text) is not None


_ONES = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_SPECIAL = {"dozen": 12, "a dozen": 12, "half a dozen": 6, "a hundred": 100, "a thousand": 1000,
            "a million": 1e6, "a billion": 1e9, "half": 0.5, "a half": 0.5, "one and a half": 1.5,
            "a quarter": 0.25, "a third": 1 / 3, "two thirds": 2 / 3, "three quarters": 0.75, "twice": 2,
            "double": 2, "triple": 3, "a pair of": 2, "a couple of": 2,
            "two-thirds": 2 / 3, "three-quarters": 0.75, "one-third": 1 / 3, "one-quarter": 0.25, "one-half": 0.5}
_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                  "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
                  "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
                  "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60,
                  "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100}

_WORDNUM = (r"(?:(?:" + "|".join(sorted(list(_TENS), key=len, reverse=True)) + r")(?:[- ](?:"
            + "|".join(sorted([w for w in _ONES if _ONES[w] and _ONES[w] < 10], key=len, reverse=True)) + r"))?|"
            + "|".join(sorted(_ONES, key=len, reverse=True)) + r")")
_WORDNUM_FULL = rf"{_WORDNUM}(?:\s+hundred(?:\s+(?:and\s+)?{_WORDNUM})?)?"


def number_word_value(text: str) -> float | None:
    """"twenty-five" -> 25, "three hundred and ten" -> 310, "a dozen" -> 12; None when not a number word."""
    t = text.lower().strip()
    half = re.fullmatch(r"(.+?)\s+and\s+a\s+half", t)
    if half:
        base = number_word_value(half.group(1))
        return None if base is None else base + 0.5
    if t in _SPECIAL:
        return float(_SPECIAL[t])
    total = 0.0
    m = re.fullmatch(rf"({_WORDNUM})(?:\s+hundred(?:\s+(?:and\s+)?({_WORDNUM}))?)?", t)
    if not m:
        return None

    def small(s: str) -> float:
        parts = re.split(r"[- ]", s)
        return float(sum(_TENS.get(p, _ONES.get(p, 0)) for p in parts))

    total = small(m.group(1))
    if "hundred" in t:
        total = total * 100 + (small(m.group(2)) if m.group(2) else 0)
    return total


_CUR_PREFIX = (r"(?P<cur>US\$|C\$|A\$|\$|€|£|¥|₹|(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|INR|CNY|SEK|NOK|DKK|NZD|HKD|SGD|ZAR|BRL|MXN|"
               r"PLN|CZK|HUF|KRW|TRY|ILS|AED|SAR|THB)\s?)?")
_BOUND_WORDS = (r"up\s+to|at\s+most|(?:limited|capped|restricted)\s+(?:to|at)|not\s+exceeding|no\s+(?:higher|greater)\s+than|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|maximum\s+of|max\.?|"
                r"under|less\s+than|fewer\s+than|below|within|at\s+least|no\s+less\s+than|not\s+less\s+than|a\s+minimum\s+of|"
                r"minimum\s+of|min\.?|more\s+than|over|above|greater\s+than|exceeding|upwards\s+of|beyond|in\s+excess\s+of|"
                r"about|around|approximately|approx\.?|roughly|nearly|almost|some|circa|ca\.|~|close\s+to|just\s+over|"
                r"just\s+under|an\s+estimated|estimated|exactly|precisely|"
                r"(?:longer|larger|bigger|higher|heavier|older|shorter|smaller|lower|lighter|younger)\s+than")
_BOUND = rf"(?:(?P<bound>{_BOUND_WORDS})\s+)?"
#: A bound or "about" before a figure the main pattern does not read ("just over half a minute").
_BOUND_BEFORE = re.compile(rf"(?<![\w])({_BOUND_WORDS})\s+$", re.I)
#: Units a number word is joined to by a hyphen: "a three-day festival", "a ten-minute walk".
_HYPHEN_UNITS = "|".join(sorted((u for u in _UNIT_TABLE if u.isalpha() and len(u) > 2), key=len, reverse=True))
_NUM = (r"(?P<num>(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\.\d)(?:(?![\w])|(?=(?:bn|mn|m|b)\b))|(?<![\w.])\.\d+(?![\w])|"
        r"(?<![\w-])(?:(?:" + _WORDNUM_FULL + r")\s+and\s+a\s+half|"
        + "|".join(re.escape(s) for s in sorted(_SPECIAL, key=len, reverse=True)) + r"|"
        + _WORDNUM_FULL + r")(?:(?![\w-])|(?=-(?:" + _HYPHEN_UNITS + r")\b)))")
_SCALE = r"(?:\s*(?P<scale>hundred|thousand|million|billion|trillion|crore|lakh|mn|bn|mln|tn|k|m|b)\b)?"
_UNIT_NAMES = sorted(set(_UNIT_TABLE) | set(CURRENCIES) | {"pounds", "pound"}, key=len, reverse=True)
_UNIT = (r"(?:(?P<plus>\+)?(?:\s*|-)(?P<unit>" + "|".join(re.escape(u) for u in _UNIT_NAMES if not u.isalpha() or len(u) > 0)
         + r")(?![\w]))?")
_QTY = re.compile(_BOUND + _CUR_PREFIX + _NUM + _SCALE + _UNIT, re.IGNORECASE)
#: The word a figure counts: "340 paintings", "42 of the crew", "12 of the school's teachers" (past a possessive).
#: (past "more" and its kin: "1,000 more applications" counts applications)
_NEXT_WORD = re.compile(r"\s*(?:-\s*)?(?:of\s+(?:the\s+|its\s+|their\s+)?(?:[A-Za-z]+['\u2019]s?\s+)?)?"
                        r"(?:(?:more|fewer|additional|extra|further|other|new)\s+(?=[a-z]))?([A-Za-z][A-Za-z'-]*)")
#: (past a filler that says when, not what: "Qualifying years so far: 33" labels years)
_PREV_WORD = re.compile(r"([A-Za-z][A-Za-z'-]*)(?:\s+(?:so\s+far|to\s+date|in\s+total|overall|currently|now|at\s+present))?"
                        r"(?:\s+of)?[\s:#]*$")
_MONTH_NEAR = re.compile(
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?", re.IGNORECASE)
_YEARLIKE = re.compile(r"(?:1[5-9]\d\d|20\d\d)")
_RANGE_SEP = re.compile(r"\s*(?:-|–|—|to|and)\s*$", re.IGNORECASE)
_QUALIFIED_SPAN = re.compile(r"\s+([A-Za-z]+)\s+(days?|weeks?|months?|years?|hours?|minutes?|nights?)\b", re.I)
_ADDS_UP = re.compile(r"\b(?:add|adds|added|adding|sum|sums|summed|come|comes|came|coming|tot|tots|totted|totals?|"
                      # a rise to a new value: "the charge goes up to 55.4p", "fares went up to £3"
                      r"go|goes|went|gone|going|rise|rises|rose|risen|rising|climbs?|climbed|jumps?|jumped)\s+$", re.I)
_BOUND_KIND = {
    "up to": "max", "at most": "max", "no more than": "max", "not more than": "max", "a maximum of": "max",
    "maximum of": "max", "max": "max", "max.": "max", "under": "lt", "less than": "lt", "fewer than": "lt",
    "below": "lt", "within": "max", "at least": "min", "no less than": "min", "not less than": "min",
    "a minimum of": "min", "minimum of": "min", "min": "min", "min.": "min", "more than": "gt", "over": "gt",
    "above": "gt", "greater than": "gt", "exceeding": "gt", "upwards of": "gt", "just over": "gt", "beyond": "gt",
    "in excess of": "gt", "limited to": "max", "capped at": "max", "restricted to": "max", "not exceeding": "max",
    "limited at": "max", "capped to": "max", "restricted at": "max", "no higher than": "max", "no greater than": "max",
    "just under": "lt",
    **{f"{w} than": "gt" for w in ("longer", "larger", "bigger", "higher", "heavier", "older")},
    **{f"{w} than": "lt" for w in ("shorter", "smaller", "lower", "lighter", "younger")},
}
_APPROX = {"about", "around", "approximately", "approx", "approx.", "roughly", "nearly", "almost", "some", "circa",
           "ca.", "~", "close to", "an estimated", "estimated"}
_VERBS_AFTER = frozenset("""contains contain includes include has have had was were is are holds hold costs cost takes take
lasts last leaves leave arrives arrive departs depart runs run opens open closes close starts start ends end weighs
weigh measures measure covers cover serves serve employs employ houses house offers offer reached became remains
remain will would can could may might must should shall did does do say says said left went came got won lost fell
rose grew made took gave saw ran quit kept held paid sold bought spent met chose wrote drove flew sat stood began told
found brought thought""".split())
#: Words after a number that are not what it counts.
#: Verbs with no "-ed" that a figure follows ("Tom ran 8, 11 and 8 km", "she won 3"): never the noun it counts.
_IRREGULAR_VERBS = frozenset("""ran run runs won win wins lost lose loses made make makes took take takes gave give gives
got get gets had has have sold sell sells paid pay pays spent spend spends bought buy buys hit hits cost costs set sets
put puts drove drive drives flew fly flies swam swim swims rode ride rides grew grow grows fell falls rose rise rises saw
see sees ate eat eats drank drink drinks kept keep keeps left leave leaves met meet meets beat beats threw throw throws
caught catch catches built build builds sent send sends brought bring brings found find finds held hold holds led lead
leads wrote write writes became become becomes began begin begins came come comes went go goes scores reach reaches
hits totals numbers counts""".split())
#: People and a bound on their age before a figure: "children under 5", "those aged 5 to", "adults over".
_AGE_OF_PEOPLE = re.compile(r"\b(?:children|kids|infants|babies|adults|people|persons|passengers|visitors|pupils|students|"
                            r"those|anyone|guests|players|applicants|patients)\s+(?:aged\s+)?(?:under|over|below|above|"
                            r"younger\s+than|older\s+than|aged)\s+$", re.I)
_NOT_NOUNS = frozenset("""a an the and or of to in on at by for with from per each every than as is are was were be
been has have had this that these those it its their his her our your which who whom whose when where while
percent times time per cent out other others more between them us you x""".split())


@dataclass(frozen=True)
class Quantity:
    """One number in a text: its value in the base unit of its dimension, and what it measures.

    ``dimension`` is a physical dimension ("mass", "length", ...), "currency:USD", "percent",
    "points", "temperature:C", "count:<noun stem>" for counted things ("340 paintings"), or "" when
    nothing says what the number counts. ``magnitude`` is the number as written (scale applied, unit
    not), so "25 mg" and "25 µg" share a magnitude and differ in value.
    """

    start: int
    end: int
    text: str
    magnitude: float
    value: float
    dimension: str
    unit: str
    bound: str | None  # max | lt | min | gt, or None
    approx: bool
    digits: int  # significant digits as written (for rounding): "3 million" -> 1, "2,987,000" -> 7
    is_word: bool  # written as words ("twelve")
    labelled: bool = False  # the count noun comes before it, as a label ("room 530", "order 8812")
    rate: str | None = None  # "per kg", "per day": the value is a rate
    inherited: bool = False  # the kind is the counted or measured figure's before it ("80 people and 30 left")
    #: the last noun of a counted compound, as a count: "60 council seats" is count:council with head count:seat
    #: (either names what it counts: "the 60 seats", "30 league games" against "30 league matches")
    head: str = ""

    @property
    def kind(self) -> str:
        return self.dimension.split(":", 1)[0]


def _sig_digits(raw: str) -> int:
    s = raw.replace(",", "").lstrip("0").replace(".", "")
    if "." not in raw.replace(",", ""):
        s = s.rstrip("0")
    return max(1, len(s))


def _word_digits(mag: float) -> int:
    """Significant digits of a number written as words: "two" and "two thousand" say one, "twelve" two,
    "three hundred and fifty" two; a fraction ("a third") three."""
    return _sig_digits(str(int(mag))) if float(mag).is_integer() else 3


def _pounds_are_money(text: str) -> bool:
    return bool(re.search(r"[£$€]|\b(?:price|cost|costs|paid|pay|sold|fee|salary|sterling|budget|fund|lent|lend|loan|"
                          r"borrow|spent|spend|raised|donat|invest|worth|revenue|profit|earn|income|wage|tax|repay|"
                          r"owe|debt|grant|pension|benefit|allowance)", text, re.I))


#: The plural noun one or two words after a singular one, and the word after it: the head of a compound ("60
#: council seats" counts seats, not councils; "24 diesel multiple units" units).
_PLURAL_AFTER = re.compile(r"(?:\s+[a-z]{3,}[^s\W])?\s+([a-z]{3,}[^s\W]s)\b(?:\W+(\w+))?")
#: What a verb has after it and a noun does not: "the 2024-25 season comprises forty-two concerts".
_OBJECT_START = re.compile(r"\d.*|a|an|the|this|that|these|those|his|her|its|their|our|your|my|some|all|every|each|no|"
                           r"one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|forty|fifty|(?:\w+-\w+)")


def _compound_head(text: str, nxt: re.Match[str], mag: float) -> str:
    """The noun a figure counts when a noun compound follows it: the compound's last word ("14 of the 60 council
    seats" and "the 60 seats" count the same thing). Only after a figure other than one and a singular first word:
    a plural noun cannot be followed by a plural head, "1 patient takes" has a verb after its noun, and a word in
    "-s" with an object after it is a verb ("25 season comprises forty-two")."""
    word = nxt.group(1)
    after = _PLURAL_AFTER.match(text, nxt.end())
    plural = word.lower().endswith("s") and not word.lower().endswith(("ss", "us", "is"))  # "5 bus stops"
    if mag == 1 or after is None or plural or word.lower() in _NOT_NOUNS:
        return word
    head = after.group(1)
    if head in _NOT_NOUNS or head in _VERBS_AFTER or head in _IRREGULAR_VERBS \
            or (after.group(2) and _OBJECT_START.fullmatch(after.group(2).lower())):
        return word
    return head


_FRACTION = re.compile(r"(?<![\w./-])(\d{1,6})/$")


def _of_total(text: str, start: int, end: int, mag: float) -> bool:
    """The total of an "a/b" score ("first-serve points won 41/56", "passed 18/20"): a figure of its own that a sum
    of totals adds up. Not a date's part ("12/25/1990", "2024/05") nor a rate ("24/7": more than the whole)."""
    m = _FRACTION.search(text, max(0, start - 8), start)
    return m is not None and float(m.group(1)) <= mag and not re.match(r"/\d", text[end:end + 2])


def _stem_noun(word: str) -> str:
    from .terms import stem

    return stem(word.lower())


# Matched at a position (``pattern.match(text, end)``), never on ``text[end:]``: slicing the rest of the
# text for every number made long answers quadratic.
_AMPM = re.compile(r"\s*(?:(?:am|pm)\b|a\.m\.?|p\.m\.?)", re.I)
_SPACE_WORD = re.compile(r"\s+([A-Za-z]+)")
_POINTS = re.compile(r"\s*(?:percentage\s+)?points?\b", re.I)
#: "out of" right before a number: a denominator; right after one, the noun after the denominator is what it counts.
#: A release named by its number: "version 4.0", "v2", "Mark 3", "firmware 1.2"; and a dotted number after a
#: capitalised word that is not a sentence's first ("Pathfinder 4.0 launches").
_VERSION_BEFORE = re.compile(r"\b(?:version|ver\.?|v\.?|release|edition|generation|gen|mark|mk|firmware|build|"
                             r"revision|rev\.?|patch)\s*$", re.I)
_NAME_BEFORE = re.compile(r"(?:[a-z,;:]\s+|^(?!(?:About|Around|Nearly|Almost|Over|Under|Only|Just|Some|Roughly|Approximately|"
                          r"Up|At|By|To|Exactly|More|Less|With|Of|In|On|For|From|The|A|An|And|But|Or|Of|Each|Every|"
                          r"All|Another|Those|These|Its|Their|Our|His|Her)\s))(?:[A-Z][\w\-]*\s+)*[A-Z][\w\-]*\s+$")
_OUT_OF = re.compile(r"\bout\s+of\s+$", re.I)
_SCALE_NOUN = re.compile(r"\s*out\s+of\s+(?:\d+(?:\.\d+)?|five|ten|a\s+hundred)\s+([A-Za-z][A-Za-z'-]*)", re.I)
_PER = re.compile(r"\s*(?:(?:per|a|an|each)\s+|/\s*)([A-Za-z]+)")
_PER_AFTER_OF = re.compile(r"\s+of\s+(?:[\w\-']+\s+){1,3}?per\s+([A-Za-z]+)")


_TIME_ORDER = ("second", "minute", "hour", "day", "week", "month", "year")


def _longer(period: str, unit: str) -> bool:
    """Whether ``period`` ("week") is a longer time unit than ``unit`` ("days", "h")."""
    def rank(word: str) -> int:
        w = word.lower().rstrip("s")
        w = {"sec": "second", "min": "minute", "h": "hour", "hr": "hour", "d": "day", "wk": "week", "yr": "year"}.get(w, w)
        return _TIME_ORDER.index(w) if w in _TIME_ORDER else -1
    return rank(unit) >= 0 and rank(period) > rank(unit)


#: "an hour and a half", "a year and a half", "half an hour": the number after (or around) its unit.
#: "half an hour", "a mile and a half", "half a kilo": any one-word unit of the table.
_HALF_WORDS = "|".join(sorted((u for u in _UNIT_TABLE if re.fullmatch(r"[a-z]{3,}", u)), key=len, reverse=True))
_HALF_UNIT = re.compile(rf"\b(?:(?:an?|one)\s+(?P<u1>{_HALF_WORDS})\s+and\s+a\s+half|half\s+an?\s+(?P<u2>{_HALF_WORDS}))\b", re.I)


def _half_units(text: str) -> list[Quantity]:
    out = []
    for m in _HALF_UNIT.finditer(text):
        unit = (m.group("u1") or m.group("u2")).lower()
        mag = 1.5 if m.group("u1") else 0.5
        dim, factor = _UNIT_TABLE[unit]
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=mag, value=mag * factor,
                            dimension=dim, unit=unit, bound=None, approx=False, digits=2, is_word=True))
    return out


_UPPER_BOUNDS = frozenset({"max", "lt", "min", "gt"})
#: "three in five", "1 out of 4", "one in every ten": a share, as a percentage.
_RATIO = re.compile(rf"\b(?P<n>\d{{1,3}}|{_WORDNUM})\s+(?:in|out\s+of)\s+(?:every\s+)?(?P<m>\d{{1,3}}|{_WORDNUM})\b"
                    r"(?!\s*(?:%|percent|per\s*cent))", re.I)


#: "his 7th goal", "finished 3rd", "the 21st century": a place in an order (not a date's day: "March 3rd").
_ORDINAL = re.compile(r"(?<![\w.,])(\d{1,4})(?:st|nd|rd|th)\b", re.I)


#: An ordinal word after a determiner: "her fourth season", "the third quarter" (not "a third": a fraction).
#: ("first" and "second" are left out: "she first won", "the first time", "a second opinion" are no places in a count)
_ORDINAL_WORD = re.compile(r"\b(?:the|his|her|its|their|our|my|your|[A-Za-z]+['\u2019]s)\s+("
                           + "|".join(w for w in _ORDINAL_WORDS if 2 < _ORDINAL_WORDS[w] <= 10) + r")\b(?!-)", re.I)
#: An ordinal word past the tenth, or a tens' compound ("ranked thirty-first", "her twelfth title"): a place in
#: a count wherever it stands, never a fraction.
_ORDINAL_WORD_HIGH = re.compile(
    r"\b(?:(?P<tens>twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)-(?P<unit>"
    + "|".join(w for w in _ORDINAL_WORDS if _ORDINAL_WORDS[w] < 10) + r")|(?P<word>"
    + "|".join(w for w in _ORDINAL_WORDS if _ORDINAL_WORDS[w] > 10) + r"))\b(?!-)", re.I)


#: A golf score against par: "seven-under-par", "14 under par", "finished on fourteen under," (a number before "under",
#: so no bound: "under 12" is one).
_TO_PAR = re.compile(rf"\b(?P<n>\d{{1,2}}|{_WORDNUM})[- ](?P<side>under|over)(?:(?P<par>[- ]par)\b|(?=\s*(?:[,.;)]|$|\s+(?:for|after|"
                     r"overall|to|with|and|in|at|on)\b)))", re.I)
_GOLF = re.compile(r"\b(?:birdies?|bogeys?|eagles?|golf|round of|rounds of|the cut)\b", re.I)


#: A run of three or more figures joined by hyphens: a golfer's rounds "70-68-70-66" (not a date "2024-05-14": each
#: part has two or three digits, and no four-digit year opens it).
_SCORE_RUN = re.compile(r"(?<![\w.\-/])\d{2,3}(?:-\d{2,3}){2,}(?![\w.\-/])")


def _to_par(text: str) -> list[Quantity]:
    """Golf scores against par as signed changes: "seven-under-par" is the -7 a results table writes "(−7)", "three
    over" the +3. Why: the claim "finished at −14" restates "finished on fourteen under", which no other reading
    equates."""
    out = []
    for m in _TO_PAR.finditer(text):
        if not m.group("par") and "par" not in text.lower() and not _GOLF.search(text):
            continue
        n = float(m.group("n")) if m.group("n").isdigit() else number_word_value(m.group("n"))
        if n is None:
            continue
        v = -n if m.group("side").lower() == "under" else n
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=v, value=v, dimension="change",
                            unit="", bound=None, approx=False, digits=len(str(int(n))), is_word=not m.group("n").isdigit()))
    return out


def _ordinals(text: str) -> list[Quantity]:
    out = []
    high = [(m.start(), m.end(), _ORDINAL_WORDS[m.group("word").lower()] if m.group("word")
             else _TENS[m.group("tens").lower()] + _ORDINAL_WORDS[m.group("unit").lower()])
            for m in _ORDINAL_WORD_HIGH.finditer(text)]
    for a, b, v in high:
        out.append(Quantity(start=a, end=b, text=text[a:b], magnitude=float(v), value=float(v), dimension="ordinal",
                            unit="", bound=None, approx=False, digits=len(str(v)), is_word=True))
    for m in _ORDINAL_WORD.finditer(text):
        if any(a <= m.start(1) < b for a, b, _ in high):
            continue
        n = float(_ORDINAL_WORDS[m.group(1).lower()])
        out.append(Quantity(start=m.start(1), end=m.end(1), text=m.group(1), magnitude=n, value=n, dimension="ordinal",
                            unit="", bound=None, approx=False, digits=len(str(int(n))), is_word=True))
    for m in _ORDINAL.finditer(text):
        around = text[max(0, m.start() - 14):m.start()] + " " + text[m.end():m.end() + 14]
        if any(_MONTH_NEAR.fullmatch(w) for w in re.findall(r"[A-Za-z]+", around)):
            continue  # a day of a date: dates.py
        n = float(m.group(1))
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=n, value=n, dimension="ordinal",
                            unit="", bound=None, approx=False, digits=len(m.group(1)), is_word=False))
    return out


def _ratios(text: str) -> list[Quantity]:
    out = []
    for m in _RATIO.finditer(text):
        if re.search(r"\d[.,]$", text[max(0, m.start() - 2):m.start()]):
            continue  # "6.5 out of 7": a score (points of games), not a share of whole things
        n, d = (float(g) if g.isdigit() else number_word_value(g) for g in (m.group("n"), m.group("m")))
        if n is None or d is None or not 0 < n < d <= 100:
            continue
        if re.search(r"\b(?:rat\w*|scor\w*|grade\w*|won|lost|mark\w*)\W+(?:\w+\W+)?$", text[max(0, m.start() - 24):m.start()], re.I) \
                or re.match(r"\s+(?:stars?|points?|marks?|games?|matches|attempts?|tries|shots?|races?)\b", text[m.end():], re.I):
            continue  # a rating or a score ("rated 4 out of 5 stars", "3 in 5 games"), not a share
        mag = 100.0 * n / d
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=mag, value=mag, dimension="percent",
                            unit="%", bound=None, approx=True, digits=2, is_word=True))
    return out


#: "twice a month", "once daily", "three times a week": how often, a count of times ("two times a month").
_FREQUENCY = re.compile(r"\b(?P<w>once|twice|thrice)(?=\s+(?:an?|per|every|each|daily|weekly|monthly|yearly|annually|"
                        r"hourly|nightly|a\s+day|a\s+week|a\s+month|a\s+year)\b)"
                        # "Morgan scored twice", "has won it twice": a count of times (not "twice as large")
                        r"|\b(?:[a-z]+ed|won|hit|ran|met|saw|beat|lost|went)\s+(?P<v>twice|thrice)\b(?!\s+(?:as|the|that)\b)", re.I)
_TIMES_WORDS = {"once": 1.0, "twice": 2.0, "thrice": 3.0}


#: "a quarter of a million", "half a billion", "three quarters of a million": a share of a scale word.
_SHARE_OF_SCALE = re.compile(r"\b(?P<f>a\s+quarter|a\s+third|half|three\s+quarters|two\s+thirds)\s+(?:of\s+)?an?\s+"
                             r"(?P<s>thousand|million|billion|trillion)\b", re.I)


def _shares_of_scale(text: str) -> list[Quantity]:
    out = []
    for m in _SHARE_OF_SCALE.finditer(text):
        share = number_word_value(re.sub(r"\s+", " ", m.group("f").lower()))
        if share is None:
            continue
        mag = share * _SCALE_WORDS[m.group("s").lower()]
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=mag, value=mag, dimension="",
                            unit="", bound=None, approx=False, digits=2, is_word=True))
    return out


#: Pence: "45p", "52p per mile" (not "1080p" video: under 100 pence a price is written so).
#: Words before "over" that make it "more than" for a duration ("took over 3 years", "in over a decade").
_OVER_AS_MORE = re.compile(r"\b(?:took|takes|taking|take|lasted|lasts|lasting|last|spent|spend|spends|for|after|waited|"
                           r"wait|of|in|just|well|than|is|was|were|are|been|be|aged?|ages|little|bit|slightly|somewhat|"
                           # (what lasts longer than it: "stays over 2 hours", "delays over 30 minutes", "loans over 21 days")
                           r"stays?|delays?|waits?|visits?|calls?|journeys?|trips?|loans?|absences?|shifts?|sessions?)\s+$",
                           re.I)
_PENCE = re.compile(r"(?<![\w.£$€,])(\d{1,3}(?:,\d{3})+|\d{1,3}(?:\.\d{1,2})?)p\b")


#: A height in feet and inches with primes: 5'5", 5′ 11″, 6'0".
_PRIMES = re.compile(r"(?<![\w.])(\d)\s*['\u2032\u2019]\s*(\d{1,2})\s*(?:\"|\u2033|\u201d|'')?(?![\w'])")


def _feet_inches(text: str) -> list[Quantity]:
    out = []
    for m in _PRIMES.finditer(text):
        feet, inches = int(m.group(1)), int(m.group(2))
        if inches > 11:
            continue
        metres = feet * 0.3048 + inches * 0.0254
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=metres, value=metres,
                            dimension="length", unit="m", bound=None, approx=False, digits=3, is_word=False))
    return out


def _pence(text: str) -> list[Quantity]:
    out = []
    money = re.search(r"[£]|\bpence\b|\bshares?\b|\bprice", text, re.I) is not None
    for m in _PENCE.finditer(text):
        if len(m.group(1)) == 3 and m.group(1).isdigit() and not money:
            continue  # "720p", "360p": a video resolution unless the text speaks of money
        mag = float(m.group(1).replace(",", ""))
        per = _PER.match(text, m.end())
        rate = per.group(1).lower() if per and (per.group(1).lower() in _UNIT_TABLE or per.group(1).lower() in (
            "day", "week", "month", "year", "hour", "night", "person", "unit", "item", "litre", "liter", "minute",
            "text", "call", "page", "word", "mile", "kilometre", "kilometer", "kwh")) else None
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=mag, value=mag / 100,
                            dimension="currency:GBP", unit="p", bound=None, approx=False,
                            digits=len(m.group(1).replace(".", "").replace(",", "").rstrip("0")) or 1,
                            is_word=False, rate=rate))
    return out


#: A duration written as clock parts: "4h 32m 10s", "1m 03s", "+9s", "2h 15m", "22h 41m 08s" (race times and
#: gaps; "m" between hours and seconds is minutes, never metres). Two parts at least, or seconds after a sign,
#: or seconds whose number no decade or age could be ("48s"; "40s" is left alone); or minutes and seconds with a
#: fraction of a second ("1:55.40", a race time).
_DURATION = re.compile(r"(?<![\w.])(?:(?P<h>\d{1,3})\s?h\s?(?:(?P<hm>\d{1,2})\s?m(?:in)?\b\s?)?(?:(?P<hs>\d{1,2})\s?s\b)?"
                       r"|(?P<m>\d{1,3})\s?m(?:in)?\s?(?P<ms>\d{1,2}(?:\.\d+)?)\s?s\b"
                       r"|(?<![\w])[+\u2212-](?P<s>\d{1,3}(?:\.\d+)?)\s?s\b"
                       r"|(?<![\w.'\u2019])(?P<u>\d?[1-9](?:\.\d+)?)s\b"
                       # a race time as minutes and seconds with their fraction ("1:55.40"): no clock time has one
                       r"|(?<![\w.:])(?P<cm>\d{1,2}):(?P<cs>[0-5]\d\.\d{1,3})(?![\d:]))")


def _durations(text: str) -> list[Quantity]:
    out = []
    for m in _DURATION.finditer(text):
        if m.group("h") is not None:
            if m.group("hm") is None and m.group("hs") is None:
                continue  # "4h" alone is the unit table's
            secs = float(int(m.group("h")) * 3600 + int(m.group("hm") or 0) * 60 + int(m.group("hs") or 0))
        elif m.group("m") is not None:
            secs = int(m.group("m")) * 60 + float(m.group("ms"))
        elif m.group("cm") is not None:
            secs = int(m.group("cm")) * 60 + float(m.group("cs"))
        else:  # (seconds alone: "+9s", or "48s" but not "the 40s", a decade or an age)
            secs = float(m.group("s") or m.group("u"))
        start = m.start("s") if m.group("s") is not None else m.start()  # (the sign of "+9s" is no part of the figure)
        body = text[start:m.end()].rstrip()
        out.append(Quantity(start=start, end=start + len(body), text=body, magnitude=secs, value=secs,
                            dimension="time", unit="s", bound=None, approx=False,
                            digits=len(re.sub(r"\D", "", body).lstrip("0")) or 1, is_word=False))
    return out


#: How often, as the period between times: "every month", "every 3 months", "every other week", "every six
#: weeks". A dimension of its own ("frequency", the period in seconds): "every 3 months" is no duration of 3
#: months, and is compared only with another "every ...".
_EVERY = re.compile(r"\bevery\s+(?:(?P<other>other|second)\s+)?(?:(?P<n>\d{1,3}|[a-z]+(?:-[a-z]+)?)\s+)?"
                    r"(?P<u>second|minute|hour|day|night|week|fortnight|month|quarter|year)s?\b", re.I)
#: Seconds in each period a rate or a frequency is given per ("$15 a month", "every 3 months"); a month is a
#: twelfth of a year, so "$15 a month" is "$180 a year".
PERIOD_SECONDS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0, "night": 86400.0, "week": 604800.0,
                  "fortnight": 1209600.0, "month": 2629800.0, "quarter": 7889400.0, "year": 31557600.0}


def _periods(text: str) -> list[Quantity]:
    out = []
    for m in _EVERY.finditer(text):
        n = m.group("n")
        worded = number_word_value(n) if n and not n.isdigit() else None
        if n and not n.isdigit() and worded is None:
            continue  # "every working day": no count of days
        count = 2.0 if m.group("other") else float(n) if n and n.isdigit() else float(worded or 1.0)
        secs = count * PERIOD_SECONDS[m.group("u").lower()]
        out.append(Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=count, value=secs,
                            dimension="frequency", unit=m.group("u").lower(), bound=None, approx=False, digits=1,
                            is_word=not (n and n.isdigit())))
    return out


#: An age band written as one word: "under-16s", "over-60s" (the people under 16, over 60): no "16 s" of time.
_AGE_BAND = re.compile(r"\b(under|over)-(\d{1,3})s\b", re.I)


def _age_bands(text: str) -> list[Quantity]:
    return [Quantity(start=m.start(), end=m.end(), text=m.group(0), magnitude=float(m.group(2)), value=float(m.group(2)),
                     dimension="", unit="", bound="lt" if m.group(1).lower() == "under" else "gt", approx=False,
                     digits=len(m.group(2).rstrip("0")) or 1, is_word=False) for m in _AGE_BAND.finditer(text)]


def _frequencies(text: str) -> list[Quantity]:
    out = []
    for m in _FREQUENCY.finditer(text):
        g = "w" if m.group("w") else "v"
        n = _TIMES_WORDS[m.group(g).lower()]
        out.append(Quantity(start=m.start(g), end=m.end(g), text=m.group(g), magnitude=n, value=n, dimension="",
                            unit="", bound=None, approx=False, digits=1, is_word=True))
    return out


#: A telephone number: groups of digits, the first with a trunk "0" or a "+" country code ("0161 555 0192",
#: "+44 20 7946 0958"); nine digits or more in all.
_PHONE = re.compile(r"(?<![\w.+])(?:\+\d{1,3}|0\d{1,4})(?:[ -]\(?\d{2,5}\)?){2,4}(?!\w|[.,]\d)")


def parse_quantities(text: str) -> list[Quantity]:
    """Every quantity of ``text`` in order. Years (1500-2099 with no unit) and clock times are left to
    :mod:`guardrail.text.dates`; ranges ("8 to 10 hours") give the unit to both ends; "three in five" is a
    share (60%, approximate: "about three in five" for 61%). A telephone number holds no figure."""
    out = _parse_quantities(text)
    if any(ch.isdigit() for ch in text) and (" " in text or "-" in text):
        phones = [(m.start(), m.end()) for m in _PHONE.finditer(text) if sum(ch.isdigit() for ch in m.group(0)) >= 9]
        if phones:
            out = [q for q in out if not any(a <= q.start < b for a, b in phones)]
    extra = _half_units(text) + (_ratios(text) if " in " in text or " out of " in text else [])
    if "ice" in text or "nce" in text:
        extra += _frequencies(text)
    if "illion" in text or "housand" in text:
        extra += _shares_of_scale(text)
    if "'" in text or "\u2032" in text or "\u2019" in text:
        extra += _feet_inches(text)
    if "s" in text or "h" in text or ":" in text:
        extra += _durations(text)
    if "every" in text or "Every" in text:
        extra += _periods(text)
    if "der-" in text or "ver-" in text:
        bands = _age_bands(text)
        # (the band's "16s" is no duration of 16 seconds)
        extra = [x for x in extra if not any(b.start <= x.start < b.end for b in bands)] + bands
    if "p" in text:
        # (a bare figure the number pattern cut from pence, "55" of "55.4p", gives way to them)
        # (and so does a figure cut from "1,315p": "worth 1")
        extra += [x for x in _pence(text) if not any(q.start <= x.start < q.end and q.dimension and q.end >= x.end for q in out)]
    if _ORDINAL.search(text) or ("th" in text and (_ORDINAL_WORD.search(text) or _ORDINAL_WORD_HIGH.search(text))) \
            or ("-first" in text or "-second" in text or "-third" in text) and _ORDINAL_WORD_HIGH.search(text):
        extra += sorted(_ordinals(text), key=lambda q: q.start)
    if ("under" in text or "over" in text) and ("par" in text or _GOLF.search(text)):
        extra += _to_par(text)
    if "-" in text:
        # "rounds of 70-68-70-66": each figure of a run of three or more, counted as the first is
        runs = [(m.start(), m.group(0)) for m in _SCORE_RUN.finditer(text)]
        for start, run in runs:
            first = next((q for q in out if q.start == start), None)
            pos = start
            for k, part in enumerate(run.split("-")):
                if k and first is not None:
                    v = float(part)
                    extra.append(replace(first, start=pos, end=pos + len(part), text=part, magnitude=v,
                                         value=v * (first.value / first.magnitude if first.magnitude else 1.0),
                                         digits=_sig_digits(part), bound=None, approx=False))
                pos += len(part) + 1
    if extra:
        # A share's or a half's parts are not figures of their own; a bound word before them is theirs
        # ("about three in five", "just over half a minute").
        for i, figure in enumerate(extra):
            b = _BOUND_BEFORE.search(text, max(0, figure.start - 24), figure.start) \
                if not figure.bound and not figure.approx and figure.dimension != "ordinal" else None
            # (a place in an order has no bound: "a win over 31st-ranked Brandt")
            if b is not None and not (b.group(1).lower().startswith("up") and _ADDS_UP.search(text, max(0, b.start() - 16), b.start())):
                # (not a rise to a new value: "goes up to 55.4p")
                word = re.sub(r"\s+", " ", b.group(1).lower())
                extra[i] = replace(figure, start=b.start(), text=text[b.start():figure.end], approx=word in _APPROX,
                                   bound=_BOUND_KIND.get(word))
        kept = []
        for q in out:
            x = next((x for x in extra if q.start < x.end and x.start < q.end), None)
            if x is None:
                kept.append(q)
            elif q.start < x.start and (q.bound or q.approx):
                extra[extra.index(x)] = replace(x, start=q.start, text=text[q.start:x.end], approx=x.approx or q.approx,
                                                bound=q.bound if q.bound in _UPPER_BOUNDS else None)
        out = sorted(kept + extra, key=lambda q: q.start)
    if "requenc" in text or "nterval" in text or "eadway" in text:
        # "Frequency: 20 minutes", "peak headway 12 min": how often, keyed; the period between times, as "every 20
        # minutes" says it.
        out = [replace(q, dimension="frequency") if q.dimension == "time" and not q.rate
               and _KEYED_FREQUENCY.search(text, max(0, q.start - 30), q.start) else q for q in out]
    return _counted_alike(out, text)


#: A capitalised word that names a numbered thing: the number after it says which one ("Year 7", "Gate 17").
_LABEL_WORD = re.compile(r"\b(Year|Grade|Level|Stage|Route|Line|Gate|Platform|Room|Flight|Terminal|Ward|Zone|Block|Floor|Unit|"
                         r"Bay|Berth|Pier|Exit|Junction|Chapter|Section|Article|Clause|Phase|Tier|Band|Channel|Track|Lane|"
                         r"Bus|Train|Court|Pitch|Screen|Studio|Cabin|Deck|Hall|Lab|Ward|Window|Desk|Counter|Lot|Plot)\s+$")
#: A price after the periods it is paid for: "5 hours at $30", "three nights at £95" (a price per hour, per night).
_AT_PRICE = re.compile(r"\b(hour|day|night|week|month)s?\s+at\s+$", re.I)
_BY = re.compile(r"\s*(?:×|x|X|\*)\s*|\s+by\s+")
_SIDE_NEXT = re.compile(r"\s*(?:×|[xX*])\s*\d")
_KEYED_FREQUENCY = re.compile(r"\b(?:frequency|interval|headway)\s*(?:of|:|=|is)?\s*(?:every\s+)?$", re.I)


#: What may stand between a counted figure and a bare one that counts the same thing: a coordination.
_ALIKE_GAP = re.compile(r"[^.!?\d—]{0,50}?(?:[,;]|\band\b|\bbut\b|\bwhile\b|\bwhereas\b|\bof\s+(?:whom|which|them)\b)[^.!?\d—]{0,40}", re.I)


#: A figure that multiplies: "2 times the regular rate", "1.5x", "3 × the dose". It counts nothing, so it takes no
#: unit from a figure before it.
_MULTIPLIER_AFTER = re.compile(r"\s*(?:times\b|[x\u00d7](?![\w])(?!\s*\d))", re.I)


def _counted_alike(qs: list[Quantity], text: str) -> list[Quantity]:
    """A bare number coordinated after a counted or measured one is of the same kind: "hired 80 people and
    30 left", "an estimate of 300 attendees, but the final count was 412", "the draft budget was 2,600
    dollars, but the revised one is 2,100". Without this the two are not comparable, and a claim that gives
    one the other's number is not caught. And "about" reaches over a coordination of one kind ("Roughly 58%
    voted Yes and 42% voted No" rounds both)."""
    for i in range(1, len(qs)):
        q, prev = qs[i], qs[i - 1]
        if prev.approx and not q.approx and not q.bound and q.kind == prev.kind and q.kind \
                and _ALIKE_GAP.fullmatch(text, prev.end, q.start) and not re.search(r"\b(?:exactly|precisely)\b", text[prev.end:q.start], re.I):
            qs[i] = q = replace(q, approx=True)
        if q.dimension or q.labelled or q.rate or not prev.dimension or prev.labelled or prev.rate or prev.kind in ("ordinal", "change"):
            continue
        if q.is_word and q.magnitude == 0:
            continue  # "a 100% reduction, so the bill is zero": nothing, in no unit
        if re.fullmatch(r"\s*:\s*", text[prev.end:q.start]) and re.search(r"\bper\s+$", text[max(0, prev.start - 6):prev.start], re.I):
            continue  # "goals per 90 minutes: 0.6": the key's rate, not 0.6 minutes
        if prev.kind in ("percent", "points") and q.magnitude > 100:
            continue  # "a 25% increase, to finish on 2,000": no share is over a hundred per cent
        if re.search(r"\b(?:aged?|ages|age\s+of)\s*$", text[:q.start], re.I):
            continue  # "rated for 90 kg and suitable for children aged 3": an age, not 3 kg
        if re.match(r"\s+(?:at|for|@|costing|priced\s+at)\s+\S*\d", text[q.end:q.end + 24], re.I):
            continue  # "three tickets at £12 and two at £8": a count of its own, priced after it
        if re.match(r"(?:\s*[-\u2013]\s*\d+)?\+?\)?\s*(?:[$€£¥₹]|[A-Z]{3}\s?\d)", text[q.end:q.end + 14]):
            continue  # "seniors 65+ $1.20", "child (5–15) $1.50": who the price is for, not a price
        if _MULTIPLIER_AFTER.match(text, q.end):
            continue  # "after 40 hours, the extra hours are paid at 2 times the rate": a multiplier, not 2 hours
        if re.match(r"\s*(?:-|\u2013|to)\s*\d", text[q.end:q.end + 8]):
            continue  # "weighing 165-170 pounds": a range's first end, whose unit comes after the range
        if _ALIKE_GAP.fullmatch(text, prev.end, q.start) and _nothing_counted_after(text, q.end):
            factor = prev.value / prev.magnitude if prev.magnitude else 1.0
            qs[i] = replace(q, dimension=prev.dimension, unit=prev.unit, value=q.magnitude * factor, inherited=True,
                            head=prev.head)
    return qs


_TWO_WORDS = re.compile(r"\s*([A-Za-z]+)?(?:\s+([A-Za-z]+))?")


def _nothing_counted_after(text: str, end: int) -> bool:
    """No noun of its own follows a bare number: "30 left", "412.", "45 were accepted", "12 resigned in
    May" (not "128 connected devices", whose noun the count parser passed over; nor "7,000 or more steps",
    whose noun comes after its bound)."""
    tail = _AND_OVER.match(text, end)
    m = _TWO_WORDS.match(text, tail.end() if tail else end)
    if m is None:
        return True
    w1, w2 = (m.group(1) or "").lower(), (m.group(2) or "").lower()
    if not w1 or w1 in _NOT_NOUNS or w1 in _VERBS_AFTER:
        return True
    return w1.endswith("ed") and (not w2 or w2 in _NOT_NOUNS)


#: A determiner (and an adjective) before "one" make it a pronoun: "a new one", "this one", "the cheaper one".
_ONE_AS_PRONOUN = re.compile(r"\b(?:a|an|the|this|that|which|another|each|every|any|no|its|their|our|your|my|his|her)"
                             r"\s+(?:[a-z]+\s+)?$", re.I)


_FEET = frozenset({"ft", "foot", "feet", "'"})
_INCHES = frozenset({"in", "inch", "inches", '"'})
_POUNDS = frozenset({"lb", "lbs", "pound", "pounds"})
#: Before "over", what makes it "compared with": a percentage or a gain ("30% over 4.1", "a lead over", "faster over").
_OVER_AS_AGAINST = re.compile(r"(?:\d\s*%|\bper\s*cent|\bpercent|\b(?:gains?|improvements?|increases?|lead|advantage|"
                              r"premium|edge|margin|faster|slower|better|worse|cheaper|dearer))\s*$", re.I)
#: "aged 65 and over", "children 12 and under": the figure is a limit.
_AND_OVER = re.compile(r"\s+(?:and|or)\s+(over|above|older|up|upwards|more|under|below|younger|less)\b(?!\s+than)", re.I)


def _parse_quantities(text: str) -> list[Quantity]:
    out: list[Quantity] = []
    for m in _QTY.finditer(text):
        raw = m.group("num")
        if raw is None:
            continue
        is_word = not raw[0].isdigit() and raw[0] != "."
        if is_word:
            mag = number_word_value(raw)
            if mag is None:
                continue
            if raw.lower() in ("half", "a half", "double", "triple", "twice") and not m.group("unit"):
                continue
            if raw.lower() == "a third" and re.match(r"\s+(?!of\b|more\b|less\b|fewer\b|as\b|to\b|and\b|or\b)[a-z]", text[m.end("num"):]):
                continue  # "a third set", "a third runway": an ordinal before its noun, not a fraction
            if raw.lower() == "one" and _ONE_AS_PRONOUN.search(text, max(0, m.start("num") - 30), m.start("num")) \
                    and text[m.end("num"):m.end("num") + 1] != "-":
                continue  # "swap it for a new one", "the blue one": a pronoun, not a count
        else:
            mag = float(raw.replace(",", ""))
        start, end = m.start("num"), m.end()
        if not is_word and start and text[start - 1] in "-\u2212" and (start == 1 or text[start - 2] in " \t\n([{:=~\u2248") \
                and m.start() == start:
            mag = -mag  # "-6°C", "(−12 °F": a minus sign, not a range's dash ("5-6") or a name's ("COVID-19")
        signed = not is_word and start > 0 and text[start - 1] in "+-\u2212" and m.start() == start \
            and (start == 1 or text[start - 2] in " \t\n([{:=~\u2248")
        unit_raw = (m.group("unit") or "").lower()
        scale_raw = (m.group("scale") or "").lower()
        cur_raw = (m.group("cur") or "").strip().lower()
        # "5 m" is metres unless money says million; "B" after a number with a currency is billions.
        if scale_raw in ("m", "b", "k") and not cur_raw and unit_raw == "":
            if scale_raw == "m":
                unit_raw, scale_raw = "m", ""
            elif scale_raw == "b":
                unit_raw, scale_raw = "b", ""
        if scale_raw:
            mag *= _SCALE_WORDS[scale_raw]
        after = text[end:end + 1]
        if after == ":" and not unit_raw and re.match(r":\d\d", text[end:end + 3]):
            continue  # a clock time
        if not is_word and re.match(r"\([a-z]\)", text[m.end("num"):m.end("num") + 3], re.I):
            continue  # a name made of a number: "401(k)", "403(b)", "501(c)(3)"
        if re.match(r"24/7|24x7|365\b", text[m.start("num"):m.start("num") + 4]) and re.match(r"(?:/7|x7)", text[m.end("num"):m.end("num") + 2]) \
                or re.search(r"24/$", text[max(0, start - 3):start]) and raw == "7":
            continue  # "24/7": all the time, no figure
        if not unit_raw and not scale_raw and not cur_raw and _YEARLIKE.fullmatch(raw) \
                and not _SIDE_NEXT.match(text, end) and not re.search(r"(?:×|\d\s*[xX*])\s*$", text[max(0, start - 8):start]):
            continue  # a year: dates.py (not a side of a size: "1722 × 1134 × 30 mm")
        if _AMPM.match(text, end):
            continue  # "3 pm"
        if re.match(r"(?:st|nd|rd|th)\b", text[end:end + 3], re.I):
            continue  # an ordinal day
        nxt_word = _SPACE_WORD.match(text, end)
        prv_word = re.search(r"([A-Za-z]+)\.?\s+$", text[max(0, start - 12):start])
        if (nxt_word and _MONTH_NEAR.fullmatch(nxt_word.group(1))) or (prv_word and _MONTH_NEAR.fullmatch(prv_word.group(1))):
            if mag <= 31 and not unit_raw and not cur_raw:
                continue  # a day of a date: dates.py
        if text[max(0, start - 1):start] == ":" and raw.isdigit():
            continue  # minutes of a clock time
        if _OUT_OF.search(text, max(0, start - 12), start):
            continue  # "4.5 out of 5 stars": the scale the value before it is on, not a value
        if not is_word and not unit_raw and not cur_raw and mag < 100 and (
                re.match(r"\)\s", text[end:end + 2]) and re.search(r"(?:^|[\s;:,])\($", text[max(0, start - 2):start])
                or re.match(r"\.\s+[A-Z(]", text[end:end + 3]) and re.search(r"(?:^|[;:\n]\s*)$", text[max(0, start - 3):start])):
            continue  # a list's enumerator: "(3) 6 cartons", "; 2. Dunmore Falcons 31 pts"
        if text[max(0, start - 1):start] in ("/", "-") and re.match(r"[\dA-Za-z]", text[max(0, start - 2):start - 1] or " ") \
                and not _of_total(text, start, end, mag):
            continue  # part of a date or an identifier ("2024-05", "COVID-19", "F-35")
        unit_end = end
        if not unit_raw and not cur_raw:
            # "25 vacation days", "10 business days", "3 working weeks": a duration whose unit comes one word on.
            dur = _QUALIFIED_SPAN.match(text, end)
            if dur and dur.group(1).lower() not in _NOT_NOUNS and dur.group(1).lower() not in _VERBS_AFTER:
                unit_raw, unit_end = dur.group(2).lower(), dur.end()
        dim, unit, value = "", unit_raw, mag
        currency = CURRENCIES.get(cur_raw) if cur_raw else None
        if unit_raw in ("pound", "pounds"):
            # Money when the text speaks of money, or in millions and billions ("lent 2 million pounds"):
            # nothing is weighed in millions of pounds in running text.
            if _pounds_are_money(text) or scale_raw in ("million", "billion", "trillion", "bn", "mn"):
                currency = currency or "GBP"
                unit = ""
            else:
                dim, value = "mass", mag * 453.59237
        elif unit_raw in CURRENCIES and unit_raw not in _UNIT_TABLE:
            currency = currency or CURRENCIES[unit_raw]
        elif unit_raw in _UNIT_TABLE:
            d, f = _UNIT_TABLE[unit_raw]
            if d == "temperature":
                c = unit_raw.endswith("f") or "fahrenheit" in unit_raw
                k = unit_raw in ("k", "kelvin")
                dim = "temperature"
                value = (mag - 32) * 5 / 9 if c else (mag - 273.15 if k else mag)
            else:
                dim, value = d, mag * f
        if currency:
            dim, value = f"currency:{currency}", mag / 100 if currency == "CENT" else mag
            if currency == "PENCE":  # "1,315 pence" is £13.15
                dim, value = "currency:GBP", mag / 100
        if unit_raw == "%" or dim == "percent":
            # "% points" is written both ways: look one word further.
            if _POINTS.match(text, end):
                dim = "points"
        after_plus = end + (text[end:end + 1] == "+")
        nxt = _SCALE_NOUN.match(text, end) or _NEXT_WORD.match(text, after_plus)
        if nxt and (nxt.group(1).lower() in _VERBS_AFTER or nxt.group(1).lower().endswith("ed")):
            nxt = None
        if nxt and _AGE_OF_PEOPLE.search(text, max(0, start - 40), start):
            nxt = None  # "children under 5 travel free": an age limit, not 5 travels
        if not dim and not unit_raw and not cur_raw and (
                re.match(r"\.[xX]\b", text[end:end + 3])  # "8.x", "2.X": a line of releases
                or _VERSION_BEFORE.search(text, max(0, start - 16), start)
                or (re.fullmatch(r"\d+\.\d+", raw) and _NAME_BEFORE.search(text, max(0, start - 30), start))):
            # "Version 4.0 of Pathfinder" = "Pathfinder 4.0": which release, not a count of anything.
            dim = "version"
        head, counted_key = "", False  # "sites: 36", "participants: 1204": a plural key counts, it does not label
        named_by = _LABEL_WORD.search(text, max(0, start - 16), start) if not dim and raw.isdigit() and not is_word else None
        if named_by and not (m.group("bound") or "").strip():
            # "Year 7 pupils", "Platform 4 trains", "Route 66": the label names which one, not a count of the pupils
            dim, labelled_by_name = "count:" + _stem_noun(named_by.group(1)), True
        else:
            labelled_by_name = False
        if not dim:
            # What the number counts: the noun after it ("340 paintings", "a crew of 42" -> crew).
            hyphen = re.match(r"-[A-Za-z]", text[end:end + 2])
            if hyphen and nxt and re.match(r"-\w+-", text[end:end + 24]):
                hyphen = None  # "43-year-old": an age, said in the words after
            if nxt and nxt.group(1).lower() not in _NOT_NOUNS and (hyphen or not re.match(r"\s*-\s*", text[end:end + 2])):
                dim = "count:" + _stem_noun(nxt.group(1))
                compound = _compound_head(text, nxt, mag)
                head = "count:" + _stem_noun(compound) if compound != nxt.group(1) else ""
            else:
                approx_only = (m.group("bound") or "").strip().lower() in _APPROX
                before = m.start() if approx_only else start  # "a median age of roughly 42": the label is "age"
                prev = _PREV_WORD.search(text, max(0, before - 40), before)
                word = prev.group(1).lower() if prev else ""
                keyed = prev is not None and ":" in prev.group(0)  # "business_stars: 4.5": the key names it
                verbish = not keyed and (word.endswith(("ed", "ing")) or word in _IRREGULAR_VERBS
                                         or (prev is not None and word.endswith("s") and " of" not in prev.group(0)))
                if prev and word not in _NOT_NOUNS and not verbish and (approx_only or not (m.group("bound") or "").strip()) \
                        and (not approx_only or " of" in prev.group(0)):
                    dim = "count:" + _stem_noun(prev.group(1))
                    counted_key = keyed and word.endswith("s") and _stem_noun(word) != word
                    per_key = re.search(r"(?:^|[;,{\"(\n])\s*([A-Za-z]+)[^;,{\"(\n:]*\bper\s+\d[\d,.]*\s+\S+\s*:\s*$",
                                        text[max(0, start - 60):start]) if keyed else None
                    if per_key is not None:
                        # "kwh per 100 cycles: 49" counts no cycles: the key's rate names its first word's unit
                        first = per_key.group(1).lower()
                        dim, counted_key = "", False
                        if first in _UNIT_TABLE and _UNIT_TABLE[first][0] not in ("temperature",) and len(first) > 1:
                            dim, unit = _UNIT_TABLE[first][0], first
                            value = mag * _UNIT_TABLE[first][1]
                    if keyed and word in _UNIT_TABLE and _UNIT_TABLE[word][0] not in ("temperature",) and len(word) > 1 \
                            and not re.search(r"\bper\s+(?:\S+\s+)?\S+\s*:\s*$", text[max(0, start - 30):start], re.I):
                        # a key that names the unit: "battery mah: 5300", "weight kg: 70" (a JSON field's key in words)
                        dim, unit = _UNIT_TABLE[word][0], word
                        value = mag * _UNIT_TABLE[word][1]
        if not dim and signed:
            dim = "change"  # "Conservatives 7 (−4)": a signed change, not a count ("Greens 4")
        labelled = dim == "version" or labelled_by_name
        if dim.startswith("count:") and not (nxt and nxt.group(1).lower() not in _NOT_NOUNS) and not counted_key:
            labelled = True
        per = _PER.match(text, unit_end)
        if per is None and unit:
            per = _PER_AFTER_OF.match(text, unit_end)  # "15 mg of the syrup per kg": the rate after what is measured
        if dim.startswith("count:") and not labelled and nxt is not None:
            per = _PER.match(text, nxt.end()) or per  # "1,000 requests per second": the rate follows the noun
        rate = None
        if per and (per.group(1).lower() in _UNIT_TABLE or per.group(1).lower() in (
                "day", "week", "month", "year", "hour", "night", "person", "user", "patient", "dose", "kg", "head", "unit")):
            by_article = per.group(0).strip().lower().startswith(("a ", "an "))
            if not (by_article and dim == "time") or _longer(per.group(1).lower(), unit):
                # "seven days a week", "8 hours a day": how often, not how long; "2 hours a patient" stays a duration
                rate = per.group(1).lower()
        elif per and per.group(1).lower() in ("pound", "pounds") and not dim.startswith("currency"):
            rate = "lb"  # "15 mg per pound" (of body weight): a mass; a price per pound is a price per lb too
        if rate is None and dim.startswith("currency"):
            at = _AT_PRICE.search(text, max(0, m.start() - 24), m.start())
            if at:
                rate = at.group(1).lower()  # "5 overtime hours at $30": $30 an hour
        bound_raw = re.sub(r"\s+", " ", (m.group("bound") or "").strip().lower())
        bound = _BOUND_KIND.get(bound_raw)
        if bound_raw == "up to" and _ADDS_UP.search(text[max(0, m.start() - 12):m.start()]):
            bound = None  # "adds up to $180", "comes up to 40 hours", "goes up to 55.4p": a total or a new value
        if bound in ("gt", "lt") and lexicon.denied_bound_at(text, m.start()):
            # "no longer than 1.05 m", "no class has more than 28 pupils": the comparison denied is a limit the
            # other way ("no more than" is listed as a maximum already)
            bound = "max" if bound == "gt" else "min"
        if bound is None and (m.group("plus") or text[end:end + 1] == "+"):
            bound = "min"  # "20+ years": at least 20
        elif bound is None and not m.group("bound"):
            tail = _AND_OVER.match(text, end)
            if tail:
                bound = "min" if tail.group(1).lower() in ("over", "above", "older", "up", "upwards", "more") else "max"
        if bound_raw == "over" and _OVER_AS_AGAINST.search(text[max(0, m.start() - 30):m.start()]):
            # "gains of up to 30% over 4.1", "a 12-point lead over Kent": what it is compared with, no limit
            bound, m_text_start = None, m.start() + len(m.group("bound") or "")
        if bound_raw == "over" and dim == "time" and not _OVER_AS_MORE.search(text[max(0, m.start() - 24):m.start()]):
            # "plant 2,500 trees over three years", "HbA1c fell over 52 weeks": during, not more than (but
            # "took over 3 years", "for over a decade")
            bound, m_text_start = None, m.start() + len(m.group("bound") or "")
            start = m_text_start + len(text[m_text_start:]) - len(text[m_text_start:].lstrip())
        q = Quantity(
            start=m.start() if bound or bound_raw != "over" else start, end=end,
            text=text[m.start() if bound or bound_raw != "over" else start:end], magnitude=mag, value=value, dimension=dim,
            unit=unit or (cur_raw.upper() if cur_raw else ""), bound=bound,
            approx=bound_raw in _APPROX, digits=_sig_digits(raw) if not is_word else _word_digits(mag), is_word=is_word,
            labelled=labelled, rate=rate, head=head if dim.startswith("count:") else "",
        )
        if dim == "change" and q.start == start:
            q = replace(q, start=start - 1, text=text[start - 1:q.end])  # the sign is part of it: "+4", "−4"
        # A range: "8 to 10 hours", "between 8 and 10 hours", "$5-10": the first end takes the unit.
        if out and dim and not out[-1].dimension.startswith(dim.split(":")[0]):
            prev_q = out[-1]
            gap = text[prev_q.end:m.start()]
            # (an end of one range starts no other: "aged 18–24 – 100% reduction" is no range of 24 to 100%)
            if _RANGE_SEP.fullmatch(gap) and (not prev_q.dimension or prev_q.dimension.startswith("count:")) \
                    and not re.search(r"\d\s*(?:-|\u2013|to)\s*$", text[max(0, prev_q.start - 8):prev_q.start]):
                factor = value / mag if mag else 1.0
                out[-1] = Quantity(prev_q.start, prev_q.end, prev_q.text, prev_q.magnitude, prev_q.magnitude * factor,
                                   dim, q.unit, prev_q.bound, prev_q.approx, prev_q.digits, prev_q.is_word)
                # and back along a list: "ran 8, 11 and 8 km" measures all three in km
                j = len(out) - 2
                while j >= 0 and not out[j].dimension and re.fullmatch(r"\s*,\s*", text[out[j].end:out[j + 1].start]):
                    x = out[j]
                    out[j] = replace(x, value=x.magnitude * factor, dimension=dim, unit=q.unit)
                    j -= 1
            elif dim == "length" and _BY.fullmatch(gap) and not prev_q.dimension:
                # the sides of a size: "1722 × 1134 × 30 mm", "3 x 4 m" give every side the unit (not a range)
                factor = value / mag if mag else 1.0
                j = len(out) - 1
                while j >= 0 and not out[j].dimension and _BY.fullmatch(text[out[j].end:(out[j + 1].start if j + 1 < len(out) else m.start())]):
                    x = out[j]
                    out[j] = replace(x, value=x.magnitude * factor, dimension=dim, unit=q.unit)
                    j -= 1
        # "between 12 and 64 characters": the ends are the range's limits (a claimed "at least 64" is the wrong one).
        if out and re.fullmatch(r"\s*and\s*", text[out[-1].end:m.start()]) and \
                re.search(r"\bbetween\s+$", text[max(0, out[-1].start - 10):out[-1].start], re.I) and \
                out[-1].bound is None and q.bound is None and out[-1].dimension == dim:
            out[-1] = replace(out[-1], bound="min")
            q = replace(q, bound="max")
        # "3 ft 5 in", "5 feet 10 inches", "2 lb 3 oz", "11 st 4 lb": one length or weight, in the base unit.
        prev_unit = out[-1].unit.lower() if out else ""
        if out and not q.bound and re.fullmatch(r"\s*(?:and\s+)?", text[out[-1].end:m.start()]) and (
                (prev_unit in _FEET and (unit.lower() in _INCHES or (not unit and re.match(r"\s*(?:in\b|\")", text[end:]))))
                or (prev_unit in _POUNDS and unit.lower() in ("oz", "ounce", "ounces"))
                or (prev_unit in ("st", "stone", "stones") and unit.lower() in _POUNDS)):
            prev_q = out[-1]
            if not unit:  # "5 in" after feet: the "in" the unit pattern leaves to the preposition
                inch = re.match(r"\s*(?:in\b|\")", text[end:])
                assert inch is not None
                end, value = end + inch.end(), mag * 0.0254
            total = prev_q.value + value
            out[-1] = Quantity(prev_q.start, end, text[prev_q.start:end], total, total, prev_q.dimension,
                               "m" if prev_q.dimension == "length" else "g", prev_q.bound, prev_q.approx,
                               max(prev_q.digits, 3), prev_q.is_word)
            continue
        # "2 hours 55 minutes", "8 min 20 s": one duration.
        if out and dim == "time" and out[-1].dimension == "time" and out[-1].value > value and \
                re.fullmatch(r"\s*(?:and\s+)?", text[out[-1].end:m.start()]) and not q.bound:
            prev_q = out[-1]
            out[-1] = Quantity(prev_q.start, end, text[prev_q.start:end], prev_q.value + value, prev_q.value + value,
                               "time", "s", prev_q.bound, prev_q.approx, max(prev_q.digits, 3), prev_q.is_word)
            continue
        out.append(q)
    return out


def _round_to(x: float, digits: int) -> float:
    if x == 0:
        return 0.0
    return round(x, -int(math.floor(math.log10(abs(x)))) + digits - 1)


def same_value(claim: Quantity, evidence: Quantity, converted: bool = False) -> bool:
    """Does the claim's value state the evidence's value? Exact, or rounded to the claim's precision
    when the claim says "about" or converts units ("about 3.1 miles" for "5 km")."""
    a, b = claim.value, evidence.value
    if math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9):
        return True
    if claim.approx or converted or claim.is_word:
        if math.isclose(a, _round_to(b, claim.digits), rel_tol=1e-6):
            return True
        if claim.approx and not converted and not claim.is_word and a and claim.digits >= 2:
            # "roughly 442,000 km" states three figures: within one unit of its last one of the evidence's value,
            # not within 5% ("about 422,000 km" is another distance); "about 3 million" keeps the loose reading.
            unit = 10.0 ** (math.floor(math.log10(abs(a))) - claim.digits + 1)
            return abs(a - b) <= unit * (1 + 1e-9)
        tol = 0.05 if claim.approx else 0.02
        return math.isclose(a, b, rel_tol=tol)
    return False


# -- a part of a counted whole --------------------------------------------------------------------------------
_COUNT_WORD = rf"(?:\d{{1,3}}|{_WORDNUM})"
#: "one of the three built-in themes", "two of its four engines", "all three themes", "each of the 12 stations",
#: "every one of the five wards", "both engines": how many of a counted whole a sentence speaks of.
_PART_OF_WHOLE = re.compile(
    rf"\b(?:(?P<k>{_COUNT_WORD}|none|neither|only\s+one)\s+of\s+(?:(?:the|its|their|our|his|her|these|those)\s+)?"
    rf"(?:[\w-]+['\u2019]s\s+)?(?P<n>{_COUNT_WORD})"
    rf"|(?:all|each|every\s+one)\s+(?:of\s+)?(?:the\s+|its\s+|their\s+|our\s+|these\s+|those\s+)?(?P<all>{_COUNT_WORD})"
    rf"|(?P<both>both))\b(?!\s*(?:%|per\s*cent|percent|[.,]\d))", re.I)


def _count_value(word: str) -> float | None:
    w = word.lower()
    return float(w) if w.isdigit() else 0.0 if w in ("none", "neither") else 1.0 if w == "only one" else number_word_value(w)


def parts_of_whole(text: str) -> list[tuple[float, float, int, int]]:
    """(part, whole, start, end) for each count of a part of a counted whole in ``text``: "one of the three built-in
    themes" -> (1, 3), "all three themes" -> (3, 3), "both engines" -> (2, 2), "none of the four" -> (0, 4).

    Why: "adds dark mode to all three themes" against "adds dark mode to one of the three themes" states the whole's
    figure right, so the figure checks pass it; the part is the slot that differs, and no quantifier word ("some",
    "all") says it on the evidence side."""
    out = []
    for m in _PART_OF_WHOLE.finditer(text):
        if m.group("both"):
            out.append((2.0, 2.0, m.start(), m.end()))
            continue
        n = _count_value(m.group("n") or m.group("all"))
        k = n if m.group("all") else _count_value(re.sub(r"\s+", " ", m.group("k")))
        if n is not None and k is not None and k <= n:
            out.append((k, n, m.start(), m.end()))
    return out


__all__.append("parts_of_whole")


#: A rate of pay or a price said as a multiple in words: "double time", "time and a half", "twice the usual rate",
#: "half price", "full pay", "triple points".
_MULTIPLE_WORDS = re.compile(
    r"\b(?:(?:double|triple|treble|quadruple)\s+(?:time|pay|rate|the\b)|time\s+and\s+(?:a\s+)?(?:half|quarter|third)|"
    r"(?:twice|three\s+times|thrice)\s+(?:the|their|your|his|her|its|as)\b|(?:half|full|double)[\s-](?:price|pay|rate|fare)s?)\b",
    re.I)


def states_multiple(text: str) -> bool:
    """Whether ``text`` states a rate as a multiple in words ("Sunday overtime is paid at double time"). Such a
    rate has no digits, so :func:`parse_quantities` reads no figure in it; an answer that says the rate is not given
    is refuted by it all the same."""
    return _MULTIPLE_WORDS.search(text) is not None


__all__.append("states_multiple")


#: Count nouns that count the same people, gathered at one event: "a crowd of 17,600" is its "attendance" and its
#: "17,600 spectators".
_AUDIENCE = frozenset({"crowd", "spectator", "attendance", "attendee", "onlooker"})


def counts_alike(a: str, b: str) -> bool:
    """Two count dimensions ("count:crowd", "count:spectator") that count the same thing under two nouns. Why: a
    claim's "watched by a crowd of 17,600" takes the other match's attendance, and the match's own "48,200
    spectators" is its rival only when the two nouns are read as one slot."""
    x, y = a.partition(":")[2], b.partition(":")[2]
    return a.startswith("count:") and b.startswith("count:") and x != y and x in _AUDIENCE and y in _AUDIENCE


#: Nouns that count people ("18 participants", "up to 24 people"), as a count's dimension reads them.
_PEOPLE_WORDS = ("person people participant attendee member player guest visitor passenger student pupil child adult "
                 "resident inhabitant citizen individual customer patient worker employee staff volunteer spectator delegate diner "
                 "camper rider voter user tenant fan").split()


@functools.lru_cache(maxsize=1)
def _people_stems() -> frozenset[str]:
    return frozenset(_stem_noun(w) for w in _PEOPLE_WORDS)


def counts_people(dimension: str) -> bool:
    """The count dimension ("count:participant") counts people. Why: "can take up to 24 people" is a capacity of
    people; a "24 bikes" of another class matches it by value, while the class's own "capped at 18 participants"
    is its rival in the same slot under another noun."""
    return dimension.startswith("count:") and dimension.partition(":")[2] in _people_stems()


#: A score or result written as two figures with a dash ("won 10-7", "led 5–3").
_SCORELINE = re.compile(r"(?<![\w.\-/:])\d{1,3}\s?[-\u2013]\s?\d{1,3}(?![\w.\-/:%])")


def side_of_score(text: str, start: int) -> bool:
    """The figure at ``start`` is one side of a score ("led 5-3", "won 10–7"). Why: a side of a score counts
    games or frames won, never the noun a claim counts; "making five century breaks" is not stated by the "5" of
    "had led 5-3" when the context counts the breaks as four."""
    return any(m.start() <= start < m.end() for m in _SCORELINE.finditer(text, max(0, start - 8), start + 12))


#: A race's or a lap's elapsed time as results state it: minutes and seconds with hundredths ("14:23.50") or hours,
#: minutes and seconds ("2:04:17"); a bare "14:23" is a clock time.
_ELAPSED = re.compile(r"(?<![\d:.])\d{1,2}:[0-5]\d(?:\.\d{1,3}|:[0-5]\d(?:\.\d{1,3})?)(?![\d:])")


def elapsed_times(text: str) -> list[tuple[int, int]]:
    """The offsets of each elapsed time ``text`` states ("second in 14:23.50"). Why: the figure parser reads
    "14:23.50" as the clock time 14:23 and a figure 23.50, and a question about someone's finishing time is
    answered by neither reading."""
    return [(m.start(), m.end()) for m in _ELAPSED.finditer(text)] if ":" in text else []


__all__.append("elapsed_times")


_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
_ORDINAL_PERIOD = re.compile(r"\bthe\s+(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\s+(year|month|week|day)\b", re.I)


def ordinal_periods(text: str) -> list[tuple[float, float, int, int]]:
    """(start, end) in seconds of each counted period ``text`` names, with its offsets: "the second year" ->
    (one year, two years). Why: a rule states such a period by its bounds ("between 12 and 24 months"), and a
    sentence that says "in the second year" asks about the same span in other words."""
    out = []
    for m in _ORDINAL_PERIOD.finditer(text):
        n, unit = _ORDINALS[m.group(1).lower()], PERIOD_SECONDS[m.group(2).lower()]
        out.append(((n - 1) * unit, n * unit, m.start(), m.end()))
    return out


__all__.append("ordinal_periods")


#: A structured field's key that names a finishing place: "winner", "runner_up", "second place", "bronze".
_PLACE_KEYS = {"winner": 1, "champion": 1, "first": 1, "1st": 1, "gold": 1, "runner up": 2, "second": 2, "2nd": 2,
               "silver": 2, "third": 3, "3rd": 3, "bronze": 3, "fourth": 4, "4th": 4}
_PLACE_WORD = r"(first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th)"
#: A place written right after a party: "with Berwick RC third", "Tolby Rovers finished second", "came in 3rd place".
_PLACE_AFTER = re.compile(r"\s*,?\s*(?:(?:finished|came|was|were|placed|ended\s+up|ended|took)\s+)?(?:in\s+)?" + _PLACE_WORD
                          + r"(?:\s+place)?(?=\s*(?:[,.;)]|$|\s+(?:and|with|in|on|at|behind|ahead|overall)\b))", re.I)
#: A place written right before a party: "third-placed Berwick RC".
_PLACE_BEFORE = re.compile(_PLACE_WORD + r"[-\s]placed\s+(?:the\s+)?$", re.I)


def place_of_key(key: str) -> int | None:
    """The finishing place a field's key names ("runner_up" -> 2, "third place" -> 3), else None. Why: a record
    of a result gives each party's place by its key, and the context may place the value elsewhere."""
    k = re.sub(r"[_\-\s]+", " ", key.strip().lower())
    return _PLACE_KEYS.get(re.sub(r"\s+(?:place|placed|finisher)$", "", k))


def stated_place(text: str, start: int, end: int) -> tuple[int, str] | None:
    """(place, as written) the text gives the party at ``text[start:end]``: an ordinal right after it, alone or
    after a verb of finishing ("with Berwick RC third", "Tolby Rovers finished second"), or "third-placed"
    right before it. Why: the place a party finished is stated beside its name, not as a figure of its own."""
    m = _PLACE_AFTER.match(text, end) or _PLACE_BEFORE.search(text, max(0, start - 20), start)
    if m is None:
        return None
    word = m.group(1)
    w = word.lower()
    n = _ORDINAL_WORDS.get(w) or int(re.sub(r"\D", "", w) or 0)
    return (n, word) if n else None


__all__ += ["place_of_key", "stated_place"]
