# Theorem 1 (printed, Eq. 17, derived) and the naive-ensemble rate vs m, and the printed bound's terms.
# Usage: gnuplot -e "csv='results/bounds_theorem1_terms.csv'; png='results/bounds_theorem1_terms.png'" plots/bounds_theorem1_terms.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# bounds.theorem1: form, m, rademacher_term, deviation_term, total); the title comes from the CSV.
if (!exists("csv")) csv = 'results/bounds_theorem1_terms.csv'
if (!exists("png")) png = 'results/bounds_theorem1_terms.png'

set encoding utf8
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
title_text = meta("title")
if (title_text eq "") title_text = "Theorem 1 terms vs m"
forms = "printed eq17 derived ensemble_printed ensemble_averaged"
names = "'Thm 1 as printed (Eq. 5)' 'Eq. 17 (exact log C(T,k))' 'derived (findings 1-4)' 'naive ensemble, printed (T R)' 'averaged ensemble (Lemma 10)'"
# The rows of one form, header kept (forms interleave in the CSV, so a 1/0 filter would break the lines).
rows(f) = sprintf("< awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;print;next} $c[\"form\"]==\"%s\"' '%s'", f, csv)
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1400,600 enhanced font ",11" } else { set terminal png size 1400,600 }
    set output png
  } else {
    set terminal svg size 1400,600 enhanced font ",11" dynamic background "white"
    set output svg
  }
  set datafile separator comma
  set datafile columnheaders
  set multiplot layout 1, 2 title sprintf("compositional paper, %s", title_text)
  set grid
  set logscale xy
  set format x "10^{%L}"
  set xlabel "training points m"
  set ylabel "bound on the generalization gap"
  set key bottom left
  set title "totals"
  plot for [i = 1:5] rows(word(forms, i)) using "m":"total" with lines lw 2 title word(names, i)
  set title "terms: Rademacher term vs deviation (Natarajan + confidence) term"
  plot rows("printed") using "m":"rademacher_term" with lines lw 2 title "printed: 4 C R_m(H)", \
       rows("printed") using "m":"deviation_term" with lines lw 2 title "printed: deviation term", \
       rows("derived") using "m":"rademacher_term" with lines lw 2 dt 2 title "derived: 4 C T w_{max} R_m(H)", \
       rows("derived") using "m":"deviation_term" with lines lw 2 dt 2 title "derived: deviation term"
  unset multiplot
}
