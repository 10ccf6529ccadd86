/* The menu and contents buttons of a narrow screen, made to open their sidebars.

   pydata-sphinx-theme 0.20.0 (requirements-site.txt) adds its own .primary-toggle and
   .secondary-toggle to the page header, before sphinx-book-theme's, and gives its handlers
   (open the sidebar as a dialog; on a wide screen, the book theme's: fold it away) only to
   the first button of each class: its own, which the book theme hides. The buttons a reader
   sees do nothing (pydata-sphinx-theme issue #2451). Each later button of a class passes its
   click on to the first. */
document.addEventListener("DOMContentLoaded", () => {
  for (const selector of [".primary-toggle", ".secondary-toggle"]) {
    const [wired, ...unwired] = document.querySelectorAll(selector);
    for (const button of unwired) {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        wired.click();
      });
    }
  }
});
