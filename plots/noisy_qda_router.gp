# noisy, Thm 1: excess classification error of the QDA router vs sample size n, per rule
# ("printed": the rule as printed, "corrected": moelab's corrected rule, "bayes": the Bayes rule).
# Usage: gnuplot -e "csv='results/noisy_qda_router.csv'; png='results/noisy_qda_router.png'" plots/noisy_qda_router.gp
# Reads the study noisy.qda_router's columns by name: n, rule, excess_mean, excess_std_error.
# Writes png and an svg beside it.
if (!exists("csv")) csv = 'results/noisy_qda_router.csv'
if (!exists("png")) png = 'results/noisy_qda_router.png'
default_title = "noisy Thm 1: excess error of the QDA router vs n"

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
# Title and trial count from the CSV metadata ('# title:' is the scenario's title).
title_text = system(sprintf("sed -n 's/^# title: //p' '%s' | head -1", csv))
if (strlen(title_text) == 0) title_text = default_title
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
if (strlen(trials_text) > 0) title_text = sprintf("%s (%s)", title_text, trials_text)

# Columns are selected by name (the CSV header), so a reordered CSV still plots right. One datablock
# per rule (columns: n, excess_mean, excess_std_error), so that each curve is drawn through its own rows only.
set datafile separator comma
set datafile columnheaders
set table $printed
plot csv using "n":"excess_mean":"excess_std_error" with table if (strcol("rule") eq "printed")
set table $corrected
plot csv using "n":"excess_mean":"excess_std_error" with table if (strcol("rule") eq "corrected")
set table $bayes
plot csv using "n":"excess_mean":"excess_std_error" with table if (strcol("rule") eq "bayes")
unset table
set datafile separator whitespace
set datafile nocolumnheaders

# The same figure as PNG and, beside it, SVG (for papers).
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000,700 enhanced font ",11"
  } else {
    set terminal png size 1000,700
  }
  set output png
} else {
  set terminal svg size 1000,700 enhanced font ",11" dynamic
  set output svg
}
set title title_text noenhanced
set xlabel "samples n"
set ylabel "excess error over the Bayes error"
set logscale x
set grid
set key top right box opaque
set bars small
plot $printed   using 1:2:3 with yerrorlines pt 7 ps 1.0 lc rgb "#ff7f0e" title "rule as printed: mean ± s.e.", \
     $corrected using 1:2:3 with yerrorlines pt 5 ps 1.0 lc rgb "#2ca02c" title "corrected rule: mean ± s.e.", \
     $bayes     using 1:2:3 with yerrorlines pt 9 ps 1.0 lc rgb "#000000" title "Bayes rule (plug-in of the truth): mean ± s.e."
}
