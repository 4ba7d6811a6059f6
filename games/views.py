"""Pages: thin views over selectors and services."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.rules import RULESETS


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "games/home.html", {"rulesets": list(RULESETS.values())})
