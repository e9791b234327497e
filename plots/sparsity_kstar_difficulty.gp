# k* against N under uniform and power-law task difficulty (compositional App. A.5): one curve per
# alpha, the uniform weights (Assumption 5) in black. Left: k*; right: the effective approximation
# constant a W / N^2 (the factor by which the power law shrinks E_approx).
# Usage: gnuplot -e "csv='results/sparsity_kstar_difficulty.csv'; png='results/sparsity_kstar_difficulty.png'" plots/sparsity_kstar_difficulty.gp
# Writes png and, beside it, the same figure as SVG. Columns are read by name (study
# sparsity.kstar_difficulty: difficulty, difficulty_alpha, N, T, m, k_star, a, a_effective).
if (!exists("csv")) csv = 'results/sparsity_kstar_difficulty.csv'
if (!exists("png")) png = 'results/sparsity_kstar_difficulty.png'

set encoding utf8
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
distinct(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} !s[$c[\"%s\"]]++{printf \"%%s \", $c[\"%s\"]}' '%s'", col, col, csv))
first(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} {print $c[\"%s\"]; exit}' '%s'", col, csv))
title_text = meta("title")
if (title_text eq "") title_text = "k* under task difficulty"
title_text = sprintf("%s, m = %s, a = %s", title_text, first("m"), first("a"))
alphas = distinct("difficulty_alpha")
na = words(alphas)
a1 = word(alphas, 1) + 0
T_max = first("T") + 0
pw(i) = strcol("difficulty") eq "powerlaw" && column("difficulty_alpha") == word(alphas, i) + 0
un = 0
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
  set multiplot layout 1, 2 title title_text
  set grid
  set key center right box opaque
  set xlabel "number of tasks N"
  set ylabel "k*"
  set yrange [0:1.06 * T_max]
  set title "integer k*: the power law lowers E_{approx}, so k* moves down"
  plot csv using "N":((strcol("difficulty") eq "uniform" && column("difficulty_alpha") == a1) ? column("k_star") : 1/0) \
         with linespoints pt 5 ps 0.6 lw 2 lc rgb "black" title "uniform (Assumption 5)", \
       for [i = 1:na] csv using "N":(pw(i) ? column("k_star") : 1/0) with linespoints pt 7 ps 0.6 lc i \
         title sprintf("power law, alpha = %s", word(alphas, i))
  set title "effective constant a W / N^2 of E_{approx} = a W / k"
  set ylabel "a W / N^2"
  set logscale y
  set autoscale y
  set key bottom left
  plot csv using "N":((strcol("difficulty") eq "uniform" && column("difficulty_alpha") == a1) ? column("a_effective") : 1/0) \
         with lines lw 2 lc rgb "black" title "uniform", \
       for [i = 1:na] csv using "N":(pw(i) ? column("a_effective") : 1/0) with linespoints pt 7 ps 0.6 lc i \
         title sprintf("alpha = %s", word(alphas, i))
  unset logscale y
  unset multiplot
}
