"""Unit conversions shared by the site tools."""

TO_CELSIUS = {
    "C": lambda value: value,
    "F": lambda value: (value - 32.0) * 5.0 / 9.0,
    "K": lambda value: value - 273.15,
}


def is_temperature(unit):
    return unit in TO_CELSIUS


def to_celsius(value, unit):
    return TO_CELSIUS[unit](value)


def describe(unit):
    return {"C": "degrees Celsius", "F": "degrees Fahrenheit", "kPa": "kilopascal"}.get(unit, unit)
