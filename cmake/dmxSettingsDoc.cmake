# SPDX-License-Identifier: BSD-3-Clause
# docs/settings.md's tables are `dmx settings --markdown`, between the two marker lines below.
#   cmake -DDMX=<dmx program> -DDOC=<docs/settings.md> -DMODE=check|write -P dmxSettingsDoc.cmake
# check (the docs_settings test): fails, naming the command that regenerates the page, when the
# page differs from what the program prints; write (target settings_doc): puts it in the page.
# Everything outside the markers is prose and is kept as it is.
set(begin_marker "<!-- BEGIN dmx settings --markdown -->")
set(end_marker "<!-- END dmx settings --markdown -->")
execute_process(COMMAND ${DMX} settings --markdown OUTPUT_VARIABLE body RESULT_VARIABLE rc
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${DMX} settings --markdown failed (${rc}): ${err}")
endif()
file(READ ${DOC} page)
string(FIND "${page}" "${begin_marker}\n" b)
string(FIND "${page}" "${end_marker}" e)
if(b LESS 0 OR e LESS b)
  message(FATAL_ERROR "${DOC}: no '${begin_marker}' line before a '${end_marker}' line")
endif()
string(LENGTH "${begin_marker}\n" blen)
math(EXPR b "${b} + ${blen}")
string(SUBSTRING "${page}" 0 ${b} head)
string(SUBSTRING "${page}" ${e} -1 tail)
set(want "${head}${body}${tail}")
if(MODE STREQUAL "write")
  if(NOT want STREQUAL page)
    file(WRITE ${DOC} "${want}")
    message(STATUS "${DOC} regenerated")
  endif()
elseif(NOT want STREQUAL page)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/settings.md.want "${want}")
  message(FATAL_ERROR "${DOC} differs from `dmx settings --markdown` (the table in "
    "src/core/settings_table.c); regenerate it with `cmake --build <build> --target settings_doc` "
    "and commit it (wanted: ${CMAKE_CURRENT_BINARY_DIR}/settings.md.want)")
else()
  message(STATUS "${DOC} matches `dmx settings --markdown`")
endif()
