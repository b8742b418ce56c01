/* kperc-book: tap or click a figure to see it enlarged.
   On a phone a figure is scaled to the column (about 45 % of its size at 390 px), so its
   9-pt text becomes unreadable. Tapping (or Enter/Space on the focused figure) opens the
   image alone at its nominal size, which scrolls in both directions and can be
   pinch-zoomed; a tap on the backdrop, the close button or Escape closes it.
   No dependencies, no network: the image already on the page is reused. */
(function () {
  "use strict";
  var SELECTOR =
    "article.bd-article figure img, article.bd-article div.cell_output img";
  var overlay = null;
  var lastFocus = null;

  function nominalWidth(img) {
    // A 2x image glued with a width (Sphinx writes it as style="width: 724px") keeps
    // that width as its nominal size.
    var w = parseFloat(img.getAttribute("width"));
    if (!(w > 0) && /px$/.test(img.style.width)) w = parseFloat(img.style.width);
    return w > 0 ? w : img.naturalWidth;
  }

  function close() {
    if (!overlay) return;
    overlay.remove();
    overlay = null;
    document.documentElement.classList.remove("kperc-lightbox-open");
    if (lastFocus) lastFocus.focus();
  }

  function open(img) {
    if (overlay || !img.naturalWidth) return;
    lastFocus = img;
    overlay = document.createElement("div");
    overlay.className = "kperc-lightbox";
    overlay.setAttribute("role", "dialog");
    overlay.setAttribute("aria-modal", "true");
    overlay.setAttribute("aria-label", "Enlarged figure");
    var btn = document.createElement("button");
    btn.type = "button";
    btn.className = "kperc-lightbox-close";
    btn.setAttribute("aria-label", "Close the enlarged figure");
    btn.textContent = "\u00d7";
    var big = document.createElement("img");
    big.src = img.currentSrc || img.src;
    big.alt = img.alt;
    // At least the nominal size (text at its set size), never smaller than the screen.
    var w = Math.max(nominalWidth(img), Math.min(window.innerWidth - 16, img.naturalWidth));
    big.style.width = w + "px";
    overlay.appendChild(btn);
    overlay.appendChild(big);
    overlay.addEventListener("click", function (ev) {
      if (ev.target !== big) close();
    });
    document.body.appendChild(overlay);
    document.documentElement.classList.add("kperc-lightbox-open");
    btn.focus();
  }

  function setup() {
    document.querySelectorAll(SELECTOR).forEach(function (img) {
      var link = img.closest("a");
      // A link to another page keeps its meaning; Sphinx's link to the image file itself
      // (added when an image has a width) is replaced by the enlarged view.
      if (link && !link.classList.contains("image-reference")) return;
      if (link) {
        link.addEventListener("click", function (ev) {
          ev.preventDefault();
        });
      }
      img.classList.add("kperc-zoomable");
      img.setAttribute("tabindex", "0");
      img.setAttribute("role", "button");
      img.setAttribute("title", "Tap or click to enlarge");
      img.addEventListener("click", function () {
        open(img);
      });
      img.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") {
          ev.preventDefault();
          open(img);
        }
      });
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape") close();
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
})();
