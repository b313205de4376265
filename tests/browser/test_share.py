"""A link copied from the browser reproduces the view in a fresh browser."""

from __future__ import annotations

from scar_viz.chunking.registry import chunker_name
from scripts.browser_actions import ask, choose, context_chunks, fresh_page
from scripts.live_app import settle, wait_for_app_run


def slider_value(page, label: str) -> str:
    slider = page.get_by_test_id("stSlider").filter(has_text=label).first
    return slider.get_by_test_id("stSliderThumbValue").inner_text()


def nudge(page, label: str, presses: int) -> None:
    handle = page.get_by_test_id("stSlider").filter(has_text=label).get_by_role("slider")
    handle.focus()
    for _ in range(presses):
        page.keyboard.press("ArrowRight")
    wait_for_app_run(page)


def test_copied_address_reproduces_the_explorer(hash_app, chromium):
    teacher = fresh_page(chromium, hash_app.url + "/")
    # the presets set the sliders (B, then A: the defaults again) without a warning
    for preset, lam in (("B", "0.10"), ("A", "0.50")):
        teacher.get_by_role("button", name=preset, exact=True).click()
        wait_for_app_run(teacher)
        assert slider_value(teacher, "λ (penalty weight)") == lam
    ask(teacher, "When may the master refuse to sail in strong wind?")
    nudge(teacher, "λ (penalty weight)", 37)
    nudge(teacher, "τ (relative bar)", 12)
    nudge(teacher, "k (retrieved)", 2)
    choose(teacher, "Chunker", chunker_name("section"))
    teacher.wait_for_url("**chunker=section**")  # the script writes the id once it has run
    settle(teacher)
    link = teacher.url
    seen = {
        label: slider_value(teacher, label)
        for label in ("λ (penalty weight)", "τ (relative bar)", "k (retrieved)")
    }
    chosen = context_chunks(teacher)
    assert seen["λ (penalty weight)"] == "0.87" and seen["k (retrieved)"] == "5"

    student = fresh_page(chromium, link)  # a fresh browser: no shared session
    assert {label: slider_value(student, label) for label in seen} == seen
    assert context_chunks(student) == chosen
    chunker = student.get_by_role("combobox", name="Chunker")
    assert chunker.input_value() == chunker_name("section")
    assert "chunker=section" in link  # the address carries the id, the select shows the name
    assert "set via the Session State API" not in hash_app.log()
    teacher.close()
    student.close()


def test_copied_address_reproduces_a_lesson_round(hash_app, chromium):
    teacher = fresh_page(chromium, hash_app.url + "/learn")
    nudge(teacher, "λ", 20)
    rounds = teacher.get_by_test_id("stRadio").filter(has_text="Round")
    third = rounds.get_by_test_id("stRadioOption").nth(2)  # an option's own label
    name = third.inner_text().strip()
    third.click()
    wait_for_app_run(teacher)
    assert "l_round=" in teacher.url
    link = teacher.url
    student = fresh_page(chromium, link)
    assert slider_value(student, "λ") == slider_value(teacher, "λ") == "0.70"
    assert student.get_by_role("radio", name=name).is_checked()
    teacher.close()
    student.close()
