# Theorem 3.1 in miniature: best piecewise-constant students of a constant-expert teacher.
# Usage: gnuplot -e "csv='results/routing_separation.csv'; png='results/routing_separation.png'" plots/routing_separation.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# routing.separation); the teacher (m, k, d) and the title come from the CSV itself.
if (!exists("csv")) csv = 'results/routing_separation.csv'
if (!exists("png")) png = 'results/routing_separation.png'
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("grep -m1 '^# %s:' '%s' | sed 's/^# %s: *//'", key, csv, key))

set encoding utf8
set datafile separator comma
set datafile columnheaders
stats csv using "m" name "M" nooutput
stats csv using "k" name "K" nooutput
stats csv using "d" name "D" nooutput
stats csv using "ratio" name "R" nooutput
title_text = meta("title")
if (title_text eq "") title_text = sprintf("Best L2 student with given regions vs a (%d, %d) constant-expert teacher", M_min, K_min)
title_text = sprintf("%s, d = %d (Theorem 3.1 in miniature)", title_text, D_min)
is_family(f) = strcol("family") eq f
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1100,700 enhanced font ",11" } else { set terminal png size 1100,700 }
    set output png
  } else {
    set terminal svg size 1100,700 enhanced font ",11" background "white"
    set output svg
  }
  set title title_text
  set grid
  set logscale x 10
  set xrange [R_min / 1.5:R_max * 1.5 > 1.5 ? R_max * 1.5 : 1.5]
  set yrange [-0.02:1.0]
  set xlabel "student configurations / teacher configurations,  C(m',k') / C(m,k)"
  set ylabel "E||f - f'||^2 / E||f||^2"
  set key top right box opaque
  set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 3 lc rgb "gray40"
  set label 1 "exact student:\n(C(m,k), 1) with the k-sums" at 1.08, 0.08 left
  plot csv using (is_family("gaussian") ? column("ratio") : 1/0):"relative_error_mean":"relative_error_std_error" with yerrorbars pt 5 ps 1.0 \
         lc rgb "#ff7f0e" title "random Gaussian (m', k') routers", \
       csv using (is_family("gaussian") ? column("ratio") : 1/0):"relative_error_mean":(sprintf("(%d,%d)", column("m_student"), column("k_student"))) \
         with labels offset 0, 0.9 font ",8" tc rgb "#ff7f0e" notitle, \
       csv using (is_family("ksum") ? column("ratio") : 1/0):"relative_error_mean":"relative_error_std_error" with yerrorlines pt 7 ps 1.0 lw 2 \
         lc rgb "#1f77b4" title "k-sum students: p of the C(m,k) configuration sums", \
       csv using (is_family("ksum") ? column("ratio") : 1/0):"floor_relative" with linespoints pt 6 lw 2 dt 2 lc rgb "#d62728" \
         title "separation floor of the proof, k-sum students", \
       csv using (is_family("gaussian") ? column("ratio") : 1/0):"floor_relative" with points pt 4 lc rgb "#d62728" title "separation floor, Gaussian students", \
       (x <= 1 ? 1 - x : 1/0) with lines dt 3 lw 1.5 lc rgb "gray30" title "naive count 1 - p/C (not a bound)"
  set output
}
