"""The one error of the pictures."""


class RenderError(ValueError):
    """Input a picture cannot show: an unknown card, an empty label, a bad scene…"""
