"""What a person does in the app, as Playwright steps that wait on the app's run state (used by
the browser tests and the benchmarks)."""

from __future__ import annotations

import contextlib
import re
import warnings

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from scripts.live_app import RUN_REQUESTED, settle, wait_for_app_run

DOCUMENT_UPLOADER = (
    "[data-testid='stSidebar'] [data-testid='stFileUploaderDropzoneInput'][accept*='.txt']"
)
"""The sidebar's document uploader (the session-file uploader takes .json only; the Evaluation
lab's query-set uploader, on the page, takes .txt too)."""

ON_THE_UPLOADER = "doc=upload"
"""The address parameter that opens the app on the sidebar's document uploader, as a link may:
a test that starts with an upload opens there, so the built-in sample is not drawn (or its
verdict computed) only to be replaced."""


def fresh_page(chromium, url: str):
    """A page in a new browser context (no shared session) opened at ``url``, once the app has
    run."""
    page = chromium.new_context().new_page()
    page.goto(url)
    wait_for_app_run(page)
    return page


def open_sidebar(page) -> None:
    """Open the sidebar when it is collapsed (presenter mode collapses it), by its chevron, as
    a person would."""
    sidebar = page.get_by_test_id("stSidebar")
    if sidebar.get_attribute("data-collapsed") == "true":
        page.get_by_test_id("stExpandSidebarButton").click()
        page.locator("[data-testid=stSidebar][data-collapsed=false]").wait_for()
        # the sidebar slides open: a width read mid-slide is narrower than the settled one
        # (a test measuring a label's fit there fails), so wait for its transitions to end
        page.wait_for_function(
            """() => {
                const bar = document.querySelector('[data-testid=stSidebar]');
                return bar && bar.getAnimations({subtree: true})
                    .every(a => !a.pending && a.playState !== 'running');
            }"""
        )


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the selectbox labelled ``label`` (typed first, so the option is in
    the list's rendered window even when the select sits low in a small viewport)."""
    page.get_by_test_id("stSelectbox").filter(has_text=label).first.click()
    page.keyboard.type(option)
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app_run(page)


def send_document(page, name: str, data: bytes, mime: str = "text/plain") -> None:
    """Give the sidebar's document uploader a file (switching to "Uploaded document" first, in
    the sidebar opened when it is collapsed) and return once the page has asked the server for
    the run that reads it, without waiting for that run (:func:`upload` waits)."""
    open_sidebar(page)
    uploader = page.locator(DOCUMENT_UPLOADER)
    if ON_THE_UPLOADER in page.url:
        # chosen already: the uploader attaches a moment after its run ends (choosing the
        # option again would start no run, and the wait for one would last its start timeout)
        uploader.wait_for(state="attached")
    elif not uploader.count():
        choose(page, "Document", "Uploaded document")
    uploader.set_input_files(files=[{"name": name, "mimeType": mime, "buffer": data}])
    # the file is sent over HTTP first, and only then does the page ask for a run: wait for
    # that request (a slow upload may take longer than wait_for_app_run's start timeout), the
    # page's own (a run the server started by itself, still going, is no sign of it). The
    # uploader's listing of the name is no sign either: a name with markup in it is listed
    # otherwise, and the wait lasted its whole timeout.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(RUN_REQUESTED, timeout=10_000)


def upload(page, name: str, data: bytes, mime: str = "text/plain") -> None:
    """Upload a file as the document (:func:`send_document`) and wait for the run reading it."""
    send_document(page, name, data, mime)
    wait_for_app_run(page)


def ask(page, question: str) -> None:
    box = page.get_by_test_id("stTextInput").filter(has_text="Question").locator("input")
    box.fill(question)
    box.press("Enter")
    wait_for_app_run(page)


def go(page, title: str) -> None:
    """Follow the sidebar navigation to another page in the same session (the page's link,
    not a section header of the same name, e.g. "Evaluation lab"), opening the sidebar first
    when it is collapsed."""
    open_sidebar(page)
    links = page.get_by_test_id("stSidebarNav").get_by_test_id("stSidebarNavLink")
    links.filter(has=page.get_by_text(title, exact=True)).first.click()
    wait_for_app_run(page)
    settle(page)


def download_text(page, button: str, tries: int = 3) -> str:
    """Press the download ``button`` and return the file it gives (downloads start no run).

    The button's file is made on the server when it is pressed, by a callable each run
    registers anew; a press that reaches the server while a run is redrawing the page still
    holds the previous run's id and gives no file (Streamlit's ``MediaFileManager.
    remove_deferred``: "a click that still holds the old id fails until the browser receives
    the new delta"). Seen once in CI under the parallel suite. So wait for the page to settle,
    and press again, as a person would, when no file came."""
    for _ in range(tries - 1):
        with contextlib.suppress(PlaywrightTimeout):
            return _press_for_file(page, button)
    return _press_for_file(page, button)


def _press_for_file(page, button: str) -> str:
    settle(page)
    with page.expect_download(timeout=20_000) as info:
        page.get_by_role("button", name=button).click()
    return open(info.value.path(), encoding="utf-8").read()


def alerts(page, kind: str = "error") -> list[str]:
    return page.locator(f"[data-testid='sv-alert-{kind}']").all_inner_texts()


def document_caption(page) -> str:
    return " ".join(
        page.get_by_test_id("stSidebar")
        .locator("[data-testid='sv-alert-caption']")
        .all_inner_texts()
    )


def caption_shows(page, text: str, timeout: float = 30_000) -> bool:
    """Wait until the sidebar's document caption contains ``text`` (it is drawn again by the
    rerun an upload causes, which may end after the run state settles under load)."""
    caption = page.get_by_test_id("stSidebar").locator("[data-testid='sv-alert-caption']")
    try:
        caption.filter(has_text=text).first.wait_for(state="visible", timeout=timeout)
    except PlaywrightTimeout:
        return False
    return True


def context_chunks(page) -> dict[int, str]:
    """{chunk index: 'retrieved · rank r' | 'admitted neighbour'} from the context view."""
    text = page.locator(".sv-ctx").inner_text()
    return {
        int(m.group(1)): m.group(2)
        for m in re.finditer(r"chunk (\d+) · (retrieved · rank \d+|admitted neighbour)", text)
    }


def use_endpoint(page) -> None:
    """Answer *Use it* to the endpoint a link or a session file proposed (``ui.consent``)."""
    press(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Use it", exact=True))


def click_button(page, name: str) -> None:
    """Click the button named ``name`` and wait for the run it starts (no settle before it and
    no second click: :func:`press` adds those)."""
    page.get_by_role("button", name=name).click()
    wait_for_app_run(page)


def press(page, button, asks_within_ms: int = 5_000) -> None:
    """Click ``button`` (a locator; its first match) once the page has stopped changing, and
    wait for the run it starts.

    A click can be lost: the *Use it* click right after an upload's run sent nothing on the
    page's websocket, once in a whole browser run and in about one run in seven of that test
    alone under four busy loops (recorded frame by frame: the run had ended, the button was
    drawn and enabled, and no message followed the click), so the run never came. The cause
    was not found; the button is clicked again, once, when the page has asked for no run
    within ``asks_within_ms``, with a warning in the test report."""
    settle(page)
    _click_for_a_run(page, button, lambda: button.first.click(), asks_within_ms)


def click_within(page, target, dx: float, dy: float, asks_within_ms: int = 5_000) -> None:
    """A mouse click ``dx``, ``dy`` px from the top-left corner of ``target`` (a locator; its
    first match), for what takes no click on an element of its own (a row of the canvas grid
    ``st.dataframe`` draws); then wait for the run it starts.

    The target is scrolled to the middle of the viewport (a mouse click lands only inside it)
    and the page left to stop changing before its box is read. As :func:`press` does, the
    click is made again, once, when the page has asked for no run within ``asks_within_ms``
    (once in a whole browser run, the focus a click on the hits grid's row sets never came;
    what was lost was not recorded). A grid row clicked twice ends unselected, so a caller
    reads the effect of the first click (the Explorer keeps its focus when a selection is
    emptied)."""

    def click() -> None:
        target.first.evaluate("el => el.scrollIntoView({block: 'center'})")
        settle(page)
        box = target.first.bounding_box()
        page.mouse.click(box["x"] + dx, box["y"] + dy)

    _click_for_a_run(page, target, click, asks_within_ms)


def _click_for_a_run(page, target, click, asks_within_ms: int) -> None:
    """``click()`` (on ``target``, a locator), again once with a warning if the page asked for
    no run within ``asks_within_ms`` while ``target`` is still there; then wait for the run."""
    click()
    try:
        page.wait_for_function(RUN_REQUESTED, timeout=asks_within_ms)
    except PlaywrightTimeout:
        if target.count():
            warnings.warn(f"a click on {target} asked for no run: clicked again", stacklevel=3)
            click()
    wait_for_app_run(page)


def open_llm_settings(page) -> None:
    """Open the sidebar's LLM expander unless it is open already (it opens by itself while
    an endpoint a link proposed waits for an answer)."""
    field = page.get_by_label("Chat API key (yours, optional)")
    settle(page)
    if not field.is_visible():
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_text("LLM (answers and query generation)").click()
        field.wait_for(state="visible")
