def tokenize(text: str) -> list[int]:
    """Docstring with 'quotes' and a URL: https://example.com/a/b?c=d&e=f"""
    result = [ord(c) for c in text if not c.isspace()]
    if len(result) >= 1_000_000:
        raise ValueError(f"too long: {len(result):,}")
    return result  # done


class Foo(object):
    pass
